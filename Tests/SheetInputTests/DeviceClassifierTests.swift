import SheetInput
import SheetProtocol
import Testing

/// The classifier's rules, in the order it applies them, on capability bitmaps: what a
/// device can report decides what it is (axis ranges play no part, only which axes exist).
struct DeviceClassifierRuleTests {
    private func kind(properties: [Int] = [], abs: [Int] = [], key: [Int] = [], rel: [Int] = []) -> InputDeviceKind {
        DeviceClassifier.kind(properties: bits(properties), abs: bits(abs), key: bits(key), rel: bits(rel))
    }

    @Test func aPenWithoutMultitouchIsATablet() {
        // Direct and with BTN_TOUCH, which would make it a touchscreen, but the pen comes first.
        #expect(kind(properties: [Code.propDirect], abs: [Code.absX, Code.absY],
                     key: [Code.btnToolPen, Code.btnTouch]) == .tablet)
    }

    @Test func aPenOnAMultitouchPanelIsATouchscreen() {
        #expect(kind(properties: [Code.propDirect], abs: [Code.absX, Code.absY, Code.absMTPositionX, Code.absMTPositionY],
                     key: [Code.btnToolPen, Code.btnTouch]) == .touchscreen)
    }

    @Test func aPenWithoutPositionsIsNotATablet() {
        #expect(kind(key: [Code.btnToolPen]) == .other)
    }

    @Test func aDirectSingleTouchDeviceWithBtnTouchIsATouchscreen() {
        #expect(kind(properties: [Code.propDirect], abs: [Code.absX, Code.absY], key: [Code.btnTouch]) == .touchscreen)
    }

    @Test func aDirectMultitouchDeviceIsATouchscreenWithoutBtnTouch() {
        #expect(kind(properties: [Code.propDirect], abs: [Code.absMTPositionX, Code.absMTPositionY]) == .touchscreen)
    }

    @Test func aDirectDeviceWithNeitherTouchNorMultitouchIsNotATouchscreen() {
        #expect(kind(properties: [Code.propDirect], abs: [Code.absX, Code.absY]) == .other)
    }

    @Test func aTouchscreenNeedsTheDirectProperty() {
        // Positions and BTN_TOUCH without INPUT_PROP_DIRECT (and without a finger tool): nothing.
        #expect(kind(abs: [Code.absX, Code.absY, Code.absMTPositionX], key: [Code.btnTouch]) == .other)
    }

    @Test func withoutPositionAxesNothingIsATouchDevice() {
        #expect(kind(properties: [Code.propDirect], key: [Code.btnTouch, Code.btnToolFinger]) == .other)
        #expect(kind(properties: [Code.propPointer], key: [Code.btnLeft, Code.btnTouch, Code.btnToolFinger]) == .pointer)
    }

    /// udev's input_id places a touch only with both axes of a pair.
    @Test func oneAxisOfAPairPlacesNoTouch() {
        #expect(kind(properties: [Code.propDirect], abs: [Code.absX, Code.absMTPositionX], key: [Code.btnTouch]) == .other)
        #expect(kind(properties: [Code.propDirect], abs: [Code.absX, Code.absMTPositionX, Code.absMTPositionY]) == .touchscreen)
    }

    @Test func anIndirectDeviceWithFingerToolAndTouchIsATouchpad() {
        #expect(kind(properties: [Code.propPointer], abs: [Code.absX, Code.absY, Code.absMTPositionX, Code.absMTPositionY],
                     key: [Code.btnLeft, Code.btnToolFinger, Code.btnTouch]) == .touchpad)
    }

    @Test func aTouchpadNeedsBothTheFingerToolAndBtnTouch() {
        #expect(kind(abs: [Code.absX, Code.absY], key: [Code.btnLeft, Code.btnToolFinger]) == .pointer)
        #expect(kind(abs: [Code.absX, Code.absY], key: [Code.btnLeft, Code.btnTouch]) == .pointer)
    }

    @Test func aDirectDeviceWithAFingerToolIsATouchscreenNotATouchpad() {
        #expect(kind(properties: [Code.propDirect], abs: [Code.absX, Code.absY],
                     key: [Code.btnToolFinger, Code.btnTouch]) == .touchscreen)
    }

    @Test func touchRulesComeBeforeLetterKeys() {
        #expect(kind(abs: [Code.absX, Code.absY], key: [Code.keyA, Code.btnToolFinger, Code.btnTouch]) == .touchpad)
    }

    @Test func aLetterKeyFromAToZMakesAKeyboard() {
        #expect(kind(key: [Code.keyA]) == .keyboard)
        #expect(kind(key: [Code.keyZ]) == .keyboard)
        // Letter keys win over the buttons and wheels of a keyboard with a pointing stick.
        #expect(kind(key: [Code.keyA, Code.btnLeft], rel: [Code.relX]) == .keyboard)
    }

    @Test func keysOutsideTheLetterRowsDoNotMakeAKeyboard() {
        // A power button is no keyboard, nor keys the key map binds; a remote's Enter and
        // Esc are keys that cannot type, which the focus uses.
        #expect(kind(key: [Code.keyPower]) == .other)
        #expect(kind(key: [Code.keyEsc, Code.keyEnter]) == .keys)
    }

    @Test func relativeMotionOrALeftButtonMakeAPointer() {
        #expect(kind(rel: [Code.relX, Code.relY]) == .pointer)
        #expect(kind(key: [Code.btnLeft]) == .pointer)
        // Absolute axes without a touch or pen rule do not stop a pointer.
        #expect(kind(abs: [Code.absX, Code.absY], key: [Code.btnLeft]) == .pointer)
    }

    @Test func aWheelAloneIsNotAPointer() {
        #expect(kind(rel: [Code.relWheel]) == .other)
    }

    @Test func aDeviceWithNoCapabilitiesIsOther() {
        #expect(kind() == .other)
        let none = DeviceClassifier.bitmap(nil)
        #expect(DeviceClassifier.kind(properties: none, abs: none, key: none, rel: none) == .other)
    }
}

/// sysfs capability bitmaps: hex words, most significant first.
struct DeviceClassifierBitmapTests {
    @Test func wordsAreMostSignificantFirst() {
        let bitmap = DeviceClassifier.bitmap("400 0 0 0 0 0\n")
        #expect(bitmap.words == [0, 0, 0, 0, 0, 0x400])
        #expect(bitmap[Code.btnTouch])
        #expect(!bitmap[Code.btnTouch - 1] && !bitmap[10])
    }

    @Test func bitsInTheLowWordAndAcrossWordBoundaries() {
        let bitmap = DeviceClassifier.bitmap("8000000000000001 8000000000000001")
        #expect(bitmap[0] && bitmap[63] && bitmap[64] && bitmap[127])
        #expect(!bitmap[1] && !bitmap[62] && !bitmap[65] && !bitmap[126])
    }

    @Test func bitsPastTheLastWordAreClear() {
        let bitmap = DeviceClassifier.bitmap("ffffffffffffffff")
        #expect(bitmap[63])
        #expect(!bitmap[64] && !bitmap[1000])
    }

    @Test func aMissingFileIsAnEmptyBitmap() {
        let bitmap = DeviceClassifier.bitmap(nil)
        #expect(bitmap.words == [])
        #expect(!bitmap[0])
    }

    @Test func aWordThatIsNotHexReadsAsZero() {
        #expect(DeviceClassifier.bitmap("zz 1").words == [1, 0])
    }

    @Test func theTestHelperWritesWhatTheKernelWrites() {
        #expect(sysfsBitmap([Code.btnTouch]) == "400 0 0 0 0 0\n")
        #expect(sysfsBitmap([]) == "0\n")
    }
}

/// The classifier reads a node's sysfs folder, named by the node's last path component.
struct DeviceClassifierSysfsTests {
    @Test func theDefaultSysfsIsSys() {
        #expect(DeviceClassifier().sysfsRoot == "/sys")
    }

    @Test func theDeviceFolderIsNamedByTheNodesLastComponent() {
        let classifier = DeviceClassifier(sysfsRoot: "/fake")
        #expect(classifier.deviceFolder(ofNode: "/dev/input/event5") == "/fake/class/input/event5/device")
        #expect(classifier.deviceFolder(ofNode: "event5") == "/fake/class/input/event5/device")
    }

    @Test func realDevicesClassifyByTheirSysfsCapabilities() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event1", name: "ELAN Touchscreen", RealDevice.touchscreen)
        try system.addDevice("event2", name: "SynPS/2 Synaptics TouchPad", RealDevice.touchpad)
        try system.addDevice("event3", name: "AT Translated Set 2 keyboard", RealDevice.keyboard)
        try system.addDevice("event4", name: "Logitech USB Optical Mouse", RealDevice.mouse)
        let classifier = DeviceClassifier(sysfsRoot: system.sysfsRoot)
        #expect(classifier.classify(node: "/dev/input/event1")?.kind == .touchscreen)
        #expect(classifier.classify(node: "/dev/input/event2")?.kind == .touchpad)
        #expect(classifier.classify(node: "/dev/input/event3")?.kind == .keyboard)
        #expect(classifier.classify(node: "/dev/input/event4")?.kind == .pointer)
    }

    @Test func theNameLosesItsTrailingNewlineAndSpaces() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event1", name: "Goodix Capacitive TouchScreen  \n", RealDevice.touchscreen)
        let found = DeviceClassifier(sysfsRoot: system.sysfsRoot).classify(node: "/dev/input/event1")
        #expect(found?.name == "Goodix Capacitive TouchScreen")
    }

    @Test func aDeviceWithoutANameIsUnknown() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event1", name: nil, RealDevice.touchscreen)
        #expect(DeviceClassifier(sysfsRoot: system.sysfsRoot).classify(node: "/dev/input/event1") == nil)
        #expect(DeviceClassifier(sysfsRoot: system.sysfsRoot).classify(node: "/dev/input/event9") == nil)
    }

    @Test func aNameThatCannotBeReadIsUnknown() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event1", name: nil, RealDevice.touchscreen)
        // A folder where the name should be: it opens, but reading it fails (EISDIR).
        try system.addClassEntry("event1/device/name")
        #expect(DeviceClassifier(sysfsRoot: system.sysfsRoot).classify(node: "/dev/input/event1") == nil)
    }

    @Test func missingCapabilityFilesMeanNoCapabilities() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        try system.addDevice("event1", name: "Bare", [:])
        let found = DeviceClassifier(sysfsRoot: system.sysfsRoot).classify(node: "/dev/input/event1")
        #expect(found?.name == "Bare")
        #expect(found?.kind == .other)
    }

    @Test func eventNodesAreListedInNumberOrder() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        for name in ["event10", "event2", "event0", "input3", "mouse1", "eventX", "event"] {
            try system.addClassEntry(name)
        }
        #expect(DeviceClassifier(sysfsRoot: system.sysfsRoot).eventNodes()
                == ["/dev/input/event0", "/dev/input/event2", "/dev/input/event10"])
    }

    @Test func withoutAnInputClassThereAreNoEventNodes() throws {
        let system = try FakeSystem()
        defer { system.remove() }
        #expect(DeviceClassifier(sysfsRoot: system.sysfsRoot).eventNodes() == [])
    }
}
