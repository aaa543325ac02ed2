#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import SheetInput
import Synchronization

/// Event codes from linux/input-event-codes.h, numbered as sysfs's capability bitmaps number
/// their bits.
enum Code {
    static let absX = 0x00, absY = 0x01, absMTPositionX = 0x35, absMTPositionY = 0x36
    static let btnLeft = 0x110, btnToolPen = 0x140, btnToolFinger = 0x145, btnTouch = 0x14a
    static let keyEsc = 1, keyEnter = 28, keyA = 30, keyZ = 44, keyPower = 116
    static let relX = 0, relY = 1, relWheel = 8
    static let propPointer = 0, propDirect = 1
}

/// The text of a sysfs capability bitmap with `bits` set: 64-bit hex words, most significant
/// first, as a 64-bit kernel writes `capabilities/abs` (`"400 0 0 0 0 0"` is BTN_TOUCH).
func sysfsBitmap(_ bits: [Int]) -> String {
    guard let top = bits.max() else { return "0\n" }
    var words = [UInt64](repeating: 0, count: top / 64 + 1)
    for bit in bits { words[bit / 64] |= 1 << UInt64(bit % 64) }
    return words.reversed().map { String($0, radix: 16) }.joined(separator: " ") + "\n"
}

/// A bitmap with `bits` set, decoded from its sysfs text as the classifier decodes it.
func bits(_ bits: [Int]) -> DeviceClassifier.Bitmap { DeviceClassifier.bitmap(sysfsBitmap(bits)) }

/// sysfs files of real devices (`/sys/class/input/eventN/device/…` on a 64-bit kernel).
enum RealDevice {
    /// A multitouch panel: INPUT_PROP_DIRECT, ABS_X/Y and the MT slot, position and tracking
    /// axes, BTN_TOUCH.
    static let touchscreen = ["properties": "2\n", "capabilities/abs": "260800000000003\n",
                              "capabilities/key": "400 0 0 0 0 0\n", "capabilities/rel": "0\n"]
    /// A clickpad: INPUT_PROP_POINTER and BUTTONPAD, pressure and MT axes, BTN_LEFT,
    /// BTN_TOOL_FINGER to QUINTTAP, BTN_TOUCH.
    static let touchpad = ["properties": "5\n", "capabilities/abs": "660800011000003\n",
                           "capabilities/key": "e520 10000 0 0 0 0\n", "capabilities/rel": "0\n"]
    /// A laptop keyboard.
    static let keyboard = ["properties": "0\n", "capabilities/abs": "0\n",
                           "capabilities/key": "402000000 3803078f800d001 feffffdfffefffff fffffffffffffffe\n",
                           "capabilities/rel": "0\n"]
    /// A remote control's keys: Esc, Enter and Up, no letters (keys that cannot type).
    static let remote = ["properties": "0\n", "capabilities/abs": "0\n",
                         "capabilities/key": "8000000000 10000002\n", "capabilities/rel": "0\n"]
    /// A wheel mouse: REL_X/Y, the wheel, BTN_LEFT to BTN_EXTRA.
    static let mouse = ["properties": "0\n", "capabilities/abs": "0\n",
                        "capabilities/key": "1f0000 0 0 0 0\n", "capabilities/rel": "903\n"]
}

/// A folder for one test laid out like the parts of the system the input layer reads:
/// `sys/class/input/eventN/device/…`, `dev/input/eventN` and `run/udev/data/cMAJOR:MINOR`.
/// Remove it when done (`defer { system.remove() }`).
struct FakeSystem {
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("sheetinput-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    var sysfsRoot: String { "\(root)/sys" }
    var deviceRoot: String { "\(root)/dev" }
    var udevDataRoot: String { "\(root)/run/udev/data" }

    /// sysfs's folder for `sysname` (`event5`) with `name` (nil: no name file) and `files`
    /// (paths inside `device/`, such as `capabilities/abs`).
    func addDevice(_ sysname: String, name: String?, _ files: [String: String] = [:]) throws {
        let folder = "\(sysfsRoot)/class/input/\(sysname)/device"
        try FileManager.default.createDirectory(atPath: "\(folder)/capabilities", withIntermediateDirectories: true)
        if let name { try write(name + "\n", to: "\(folder)/name") }
        for (file, text) in files { try write(text, to: "\(folder)/\(file)") }
    }

    /// An entry of `sys/class/input` that is only a folder (`input3`, `mouse0`).
    func addClassEntry(_ name: String) throws {
        try FileManager.default.createDirectory(atPath: "\(sysfsRoot)/class/input/\(name)", withIntermediateDirectories: true)
    }

    /// `dev/input/<sysname>` as a regular file with `mode`; its path. (A regular file's
    /// `st_rdev` is 0, so its udev record is `c0:0`.)
    @discardableResult
    func addNode(_ sysname: String, mode: mode_t = 0o640) throws -> String {
        try FileManager.default.createDirectory(atPath: "\(deviceRoot)/input", withIntermediateDirectories: true)
        let path = "\(deviceRoot)/input/\(sysname)"
        try write("", to: path)
        guard chmod(path, mode) == 0 else { throw FakeSystemError(message: "chmod \(path) failed") }
        return path
    }

    /// udev's record of device `c0:0` (what a regular file's node maps to).
    func addUdevRecord(_ text: String, device: String = "c0:0") throws {
        try FileManager.default.createDirectory(atPath: udevDataRoot, withIntermediateDirectories: true)
        try write(text, to: "\(udevDataRoot)/\(device)")
    }

    func write(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: root)
    }
}

struct FakeSystemError: Error {
    var message: String
}

/// The name of the group that owns `path`, as `sheetctl doctor` spells it.
func groupName(ofFile path: String) -> String {
    var info = stat()
    guard stat(path, &info) == 0 else { return "?" }
    return getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? "\(info.st_gid)"
}

/// A logger whose lines a test reads afterwards.
final class LogCapture: Sendable {
    struct Line: Sendable, Equatable {
        var level: Logger.Level
        var message: String
    }

    private let storage = Mutex<[Line]>([])

    var lines: [Line] { storage.withLock { $0 } }

    var logger: Logger { Logger(label: "test", factory: { _ in Handler(capture: self) }) }

    fileprivate func append(_ line: Line) {
        storage.withLock { $0.append(line) }
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.append(Line(level: event.level, message: "\(event.message)"))
        }
    }
}
