// SheetView: the sheet sheetd publishes, drawn in a Qt Quick scene, as <sheet-view> draws it in
// a page. The daemon decides everything: where the card is, what a touch did. This item draws
// the states it is sent (the card, the dim, the title, the close button, the sections and
// rows), and sends the touches that land on the region the sheet takes, and the keys while
// the sheet holds the focus, to the daemon; the rest reach the items beneath. Put it over the
// whole window, above the app:
//
//     SheetView { anchors.fill: parent; onItemTapped: (item, sheet) => console.log(item) }
import QtQuick
import Sheetd

Item {
    id: view

    /// The daemon's socket (empty: the seat's if one is named, else $SHEETD_SOCKET, else
    /// /run/sheetd/io.sheetd.Sheet), the seat, the input socket (empty: beside the daemon's).
    property alias socket: follower.socket
    property alias seat: follower.seat
    property alias inputSocket: follower.inputSocket
    /// Whether the view tells the daemon the screen's size: the app owns the display (eglfs).
    property alias setsScreen: follower.setsScreen
    /// States a second at most: the screen's refresh rate, else 60.
    property alias maxRate: follower.maxRate
    /// What `theme: auto` resolves to: the app's own preference.
    property bool prefersDark: false
    readonly property alias connected: follower.connected
    /// The last state (docs/protocol.md's State) and the content it shows.
    readonly property alias sheetState: follower.state
    readonly property alias sheetContent: follower.content
    readonly property alias problem: follower.problem
    /// The follower itself: `focus(element, command)` for a program's own controls.
    readonly property alias follower: follower

    /// What the daemon reports of the sheet (docs/protocol.md's events); `sheet`: the
    /// program's sheet it happened on, null on the shared sheet.
    signal sheetEvent(var event)
    signal itemTapped(string item, var sheet)
    signal itemToggled(string item, bool on, var sheet)
    signal reorderEnded(string item, var order, var sheet)
    signal dismissAttempted(string cause, var sheet)
    signal presented(string cause, var sheet)

    clip: true

    SheetFollower {
        id: follower
        viewSize: Qt.size(view.width, view.height)
        // No more states than the display shows (the app may set maxRate itself).
        maxRate: view.Screen.refreshRate > 0 ? Math.min(1000, Math.round(view.Screen.refreshRate)) : 60
        devicePixelRatio: view.Screen.devicePixelRatio > 0 ? view.Screen.devicePixelRatio : 1
        onSheetEvent: (event) => {
            view.sheetEvent(event)
            const sheet = event.sheet === undefined ? null : event.sheet
            switch (event.event) {
            case "item-tapped": view.itemTapped(event.item, sheet); break
            case "item-toggled": view.itemToggled(event.item, event.on, sheet); break
            case "reorder-ended": view.reorderEnded(event.item, event.order || [], sheet); break
            case "dismiss-attempted": view.dismissAttempted(event.cause || "", sheet); break
            case "presented": view.presented(event.cause || "", sheet); break
            }
        }
    }

    // The state, in this view's pixels (the daemon's are the display's: divided by the ratio).
    readonly property var st: follower.state
    readonly property real ratio: follower.devicePixelRatio
    readonly property bool known: st.screen !== undefined
    readonly property bool shown: known && !(st.state === "resting" && st.detent === "hidden")
    readonly property var look: (known && st.appearance) || ({})
    readonly property bool modal: !(known && st.presentation && st.presentation.modal === false)
    readonly property var list: (known && st.list) || null
    // The content, read from the follower when it changes only (each read of a map property is
    // a new object), and the list's metrics: what the rows are laid out from, so that a state
    // that only moves the card or scrolls the list lays nothing out again.
    property var content: null
    Connections {
        target: follower
        function onContentChanged() { view.content = follower.content.items !== undefined ? follower.content : null }
    }
    readonly property real itemHeight: list ? list.itemHeight : 0
    readonly property real twoLineItemHeight: list ? (list.twoLineItemHeight || list.itemHeight) : 0
    readonly property real headerHeight: list ? (list.headerHeight || 0) : 0
    readonly property bool listed: list !== null && content !== null
    readonly property string liftedItem: list && list.lifted ? list.lifted.item : ""
    readonly property real liftedOffset: list && list.lifted ? list.lifted.offset / ratio : 0
    readonly property real liftedScale: list && list.lifted ? list.lifted.scale : 1
    readonly property string focused: known && st.focusVisible && st.focus ? st.focus : ""

    // The theme's colours, as <sheet-view>'s (and the other renderers').
    readonly property string theme: look.theme === "auto" ? (prefersDark ? "dark" : "light") : (look.theme || "light")
    readonly property bool dark: theme === "dark" || theme === "high-contrast-dark"
    readonly property bool highContrast: theme === "high-contrast" || theme === "high-contrast-dark"
    readonly property color cardColor: look.card ? look.card
        : theme === "dark" ? "#383838" : theme === "high-contrast-dark" ? "#000000" : "#ffffff"
    readonly property color ink: dark ? "#ffffff" : highContrast ? "#000000" : Qt.rgba(0, 0, 0, 0.8)
    readonly property color inkStrong: dark ? "#ffffff" : "#000000"
    readonly property color inkSoft: dark ? Qt.rgba(1, 1, 1, 0.7) : highContrast ? Qt.rgba(0, 0, 0, 0.7) : Qt.rgba(0, 0, 0, 0.55)
    readonly property color line: theme === "high-contrast" ? "#000000" : theme === "high-contrast-dark" ? "#ffffff"
        : dark ? Qt.rgba(1, 1, 1, 0.15) : Qt.rgba(0, 0, 0, 0.12)
    readonly property color off: theme === "dark" ? "#5e5e5e" : theme === "high-contrast" ? "#767676"
        : theme === "high-contrast-dark" ? "#8a8a8a" : "#cccccc"
    readonly property color accent: look.accent || "#3584e4"
    readonly property real textScale: look.textScale || 1
    // The daemon's font (a fontconfig pattern: its first family), else the system's sans-serif.
    readonly property string fontFamily: look.font ? look.font.replace(/\s+[0-9.]+$/, "").split(",")[0] : "sans-serif"
    readonly property real radius: look.cornerRadius !== undefined ? look.cornerRadius : 28
    readonly property bool rightToLeft: {
        const language = listed && content.lang ? content.lang.split("-")[0].toLowerCase() : ""
        return ["ar", "he", "fa", "ur", "yi", "ps", "sd", "ug", "dv", "ckb"].indexOf(language) >= 0
    }

    /// Where each row lies from the list's top, as the daemon's ListLayout lays it out: a header
    /// above the first row of each run of one named section, rows one or two lines high; grouped
    /// by section, for the screen reader's lists.
    readonly property var sections: {
        if (!content || itemHeight <= 0) return []
        const groups = []
        const items = content.items
        let y = 0
        for (let index = 0; index < items.length; index++) {
            const item = items[index]
            const previous = index > 0 ? items[index - 1] : null
            if (!previous || (previous.section || "") !== (item.section || "")) {
                const group = { name: item.section || "", header: y, rows: [] }
                if (item.section) y += headerHeight
                groups.push(group)
            }
            const height = item.subtitle ? twoLineItemHeight : itemHeight
            groups[groups.length - 1].rows.push({ item: item, top: y, height: height })
            y += height
        }
        return groups
    }

    Item {
        id: sheet
        anchors.fill: parent
        visible: view.shown

        Rectangle {
            id: dim
            anchors.fill: parent
            color: view.look.dim || "#000000"
            opacity: view.known ? view.st.dim : 0
        }

        Rectangle {
            id: card
            readonly property var extent: view.known && view.st.card ? view.st.card : ({ x: 0, width: view.st.screen ? view.st.screen.width : 0 })
            x: extent.x / view.ratio
            y: view.known ? view.st.top / view.ratio : view.height
            width: extent.width / view.ratio
            // Below the screen's edge, out of sight: the bottom corners, so that only the top is round.
            height: view.height + view.radius
            radius: view.radius
            color: view.cardColor
            border.width: view.highContrast ? 2 : 0
            border.color: view.ink
            LayoutMirroring.enabled: view.rightToLeft
            LayoutMirroring.childrenInherit: true

            Accessible.role: Accessible.Dialog
            Accessible.name: view.listed ? view.content.title : ""

            Rectangle {
                id: grabber
                x: (parent.width - width) / 2
                y: -13
                width: 60
                height: 5
                radius: 3
                color: Qt.rgba(1, 1, 1, 0.75)
            }

            Item {
                id: bar
                anchors { left: parent.left; right: parent.right; top: parent.top }
                height: view.list ? view.list.titleBar / view.ratio : 0
                Text {
                    id: title
                    anchors { left: parent.left; leftMargin: 20; right: closeButton.left; rightMargin: 12; verticalCenter: parent.verticalCenter }
                    text: view.listed ? view.content.title : ""
                    font.pixelSize: 20 * view.textScale
                    font.bold: true
                    font.family: view.fontFamily
                    color: view.inkStrong
                    elide: Text.ElideRight
                    horizontalAlignment: Text.AlignLeft
                    Accessible.ignored: true
                }
                Rectangle {
                    id: closeButton
                    anchors { right: parent.right; rightMargin: 16; verticalCenter: parent.verticalCenter }
                    width: 30
                    height: 30
                    radius: 15
                    visible: view.list !== null
                    color: Qt.rgba(0.5, 0.5, 0.5, 0.22)
                    border.width: view.focused === "close" ? 3 : 0
                    border.color: view.accent
                    Repeater {
                        model: [45, -45]
                        Rectangle {
                            required property int modelData
                            anchors.centerIn: parent
                            width: 16
                            height: 2
                            color: view.inkStrong
                            rotation: modelData
                        }
                    }
                    Accessible.role: Accessible.Button
                    Accessible.name: qsTr("Close")
                    Accessible.onPressAction: follower.focus("close", "activate")
                }
            }

            Item {
                id: listArea
                anchors { left: parent.left; right: parent.right; top: bar.bottom; bottom: parent.bottom }
                clip: true
                Item {
                    id: rows
                    width: parent.width
                    y: view.list ? -view.list.scroll / view.ratio : 0
                    visible: view.listed
                    Repeater {
                        model: view.sections
                        Item {
                            id: section
                            required property var modelData
                            width: rows.width
                            Accessible.role: Accessible.List
                            Accessible.name: modelData.name
                            Text {
                                visible: section.modelData.name !== ""
                                anchors { left: parent.left; right: parent.right; leftMargin: 20; rightMargin: 20 }
                                y: section.modelData.header / view.ratio
                                height: view.headerHeight / view.ratio - 8
                                verticalAlignment: Text.AlignBottom
                                horizontalAlignment: Text.AlignLeft
                                text: section.modelData.name
                                font.pixelSize: 13 * view.textScale
                                font.bold: true
                                font.family: view.fontFamily
                                color: view.inkSoft
                                Accessible.ignored: true
                            }
                            Repeater {
                                model: section.modelData.rows
                                SheetRow {
                                    required property var modelData
                                    required property int index
                                    sheetView: view
                                    item: modelData.item
                                    width: rows.width
                                    y: modelData.top / view.ratio
                                    height: modelData.height / view.ratio
                                    last: index === section.modelData.rows.length - 1
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    // What takes the sheet's touches: the region the daemon says the sheet takes, kept while
    // fingers are down on it.
    SheetTouchArea {
        id: touches
        follower: follower
        screen: view
        property var region: null
        visible: region !== null && region.width > 0 && region.height > 0
        x: region ? region.x / view.ratio : 0
        y: region ? region.y / view.ratio : 0
        width: region ? region.width / view.ratio : 0
        height: region ? region.height / view.ratio : 0
        function follow() { if (fingers === 0) region = view.known && view.st.region ? view.st.region : null }
        onFingersChanged: follow()
        onTouched: view.touchedSinceShown = true
        Connections {
            target: follower
            function onStateChanged() { touches.follow() }
        }
    }

    // Keys go to the daemon while the sheet holds the focus: open and modal, or touched since
    // it opened; then the app's focus comes back.
    property bool touchedSinceShown: false
    onShownChanged: if (!shown) touchedSinceShown = false
    readonly property bool holdsKeys: shown && (modal || touchedSinceShown)
    property Item focusBefore: null
    onHoldsKeysChanged: {
        if (holdsKeys) {
            focusBefore = Window.activeFocusItem
            keys.forceActiveFocus()
        } else if (keys.activeFocus && focusBefore) {
            focusBefore.forceActiveFocus()
        }
    }
    Item {
        id: keys
        // The DOM's and Qt's keys the sheet takes, as the kernel numbers them.
        readonly property var codes: ({
            [Qt.Key_Escape]: 1, [Qt.Key_Tab]: 15, [Qt.Key_Backtab]: 15, [Qt.Key_Return]: 28, [Qt.Key_Shift]: 42,
            [Qt.Key_Space]: 57, [Qt.Key_Enter]: 96, [Qt.Key_Home]: 102, [Qt.Key_Up]: 103, [Qt.Key_PageUp]: 104,
            [Qt.Key_Left]: 105, [Qt.Key_Right]: 106, [Qt.Key_End]: 107, [Qt.Key_Down]: 108, [Qt.Key_PageDown]: 109,
            [Qt.Key_Back]: 158
        })
        function pass(event, pressed) {
            const code = codes[event.key]
            if (code === undefined || !view.holdsKeys) return
            event.accepted = true
            if (!event.isAutoRepeat) follower.forwardKey(code, pressed)
        }
        Keys.onPressed: (event) => pass(event, true)
        Keys.onReleased: (event) => pass(event, false)
    }
}
