// One row of the sheet's list (SheetView lays the rows out): an icon, the label and its second
// line, the accessory at the trailing edge (a switch, a check, a value, a chevron), faded when
// disabled, lifted while a long press holds it, ringed when the keys' focus is on it.
import QtQuick

Rectangle {
    id: row

    required property Item sheetView
    required property var item
    property bool last: false

    readonly property string accessory: item.accessory || "none"
    readonly property bool on: item.on === true
    readonly property bool lifted: sheetView.liftedItem === item.id

    color: sheetView.cardColor
    opacity: item.disabled ? 0.45 : 1
    z: lifted ? 1 : 0
    radius: lifted || sheetView.focused === item.id ? 8 : 0
    border.width: sheetView.focused === item.id ? 3 : 0
    border.color: sheetView.accent
    transform: [
        Scale { origin.x: row.width / 2; origin.y: row.height / 2; xScale: row.lifted ? sheetView.liftedScale : 1; yScale: xScale },
        Translate { y: row.lifted ? sheetView.liftedOffset : 0 }
    ]

    // To a screen reader: a switch or a check box that says whether it is on, else a button;
    // its activation is a tap, made by the daemon (`Focus(item, activate)`).
    Accessible.role: accessory === "toggle" || accessory === "check" ? Accessible.CheckBox : Accessible.Button
    Accessible.name: item.label
    Accessible.description: [item.subtitle || "", accessory === "value" ? (item.value || "") : ""].filter((part) => part !== "").join(", ")
    Accessible.checkable: accessory === "toggle" || accessory === "check"
    Accessible.checked: on
    Accessible.focusable: !item.disabled
    Accessible.focused: sheetView.focused === item.id
    Accessible.onPressAction: if (!item.disabled) sheetView.follower.focus(item.id, "activate")
    Accessible.onToggleAction: if (!item.disabled) sheetView.follower.focus(item.id, "activate")

    Image {
        id: icon
        visible: !!row.item.icon
        anchors { left: parent.left; leftMargin: 20; verticalCenter: parent.verticalCenter }
        width: visible ? 24 : 0
        height: 24
        sourceSize: Qt.size(24 * sheetView.ratio, 24 * sheetView.ratio)
        source: row.item.icon ? "image://sheetd-icons/" + row.item.icon + "?ink=" + encodeURIComponent(sheetView.ink.toString()) : ""
        Accessible.ignored: true
    }

    Column {
        anchors {
            left: icon.visible ? icon.right : parent.left
            leftMargin: icon.visible ? 16 : 20
            right: trailing.left
            rightMargin: 16
            verticalCenter: parent.verticalCenter
        }
        Text {
            width: parent.width
            text: row.item.label
            font.pixelSize: 16 * sheetView.textScale
            font.family: sheetView.fontFamily
            color: sheetView.ink
            elide: Text.ElideRight
            horizontalAlignment: Text.AlignLeft
            Accessible.ignored: true
        }
        Text {
            width: parent.width
            visible: !!row.item.subtitle
            text: row.item.subtitle || ""
            font.pixelSize: 13 * sheetView.textScale
            font.family: sheetView.fontFamily
            color: sheetView.inkSoft
            elide: Text.ElideRight
            horizontalAlignment: Text.AlignLeft
            Accessible.ignored: true
        }
    }

    Item {
        id: trailing
        anchors { right: parent.right; rightMargin: 20; verticalCenter: parent.verticalCenter }
        width: row.accessory === "toggle" ? 44 : row.accessory === "check" ? 20 : row.accessory === "chevron" ? 12
            : row.accessory === "value" ? value.implicitWidth : 0
        height: 24

        Rectangle {
            visible: row.accessory === "toggle"
            anchors.fill: parent
            radius: 12
            color: row.on ? sheetView.accent : sheetView.off
            Rectangle {
                width: 18
                height: 18
                radius: 9
                y: 3
                // At the trailing end when on: mirrored with the row in right-to-left text.
                x: (row.on !== row.LayoutMirroring.enabled) ? 23 : 3
                color: "#ffffff"
            }
        }
        Item {
            visible: row.accessory === "check" && row.on
            anchors.centerIn: parent
            width: 20
            height: 12
            rotation: -45
            Rectangle { x: 0; y: 0; width: 3; height: 12; color: sheetView.accent }
            Rectangle { x: 0; y: 9; width: 20; height: 3; color: sheetView.accent }
        }
        Item {
            visible: row.accessory === "chevron"
            anchors.centerIn: parent
            width: 9
            height: 9
            rotation: row.LayoutMirroring.enabled ? -135 : 45
            Rectangle { x: 0; y: 0; width: 9; height: 2; color: sheetView.inkSoft }
            Rectangle { x: 7; y: 0; width: 2; height: 9; color: sheetView.inkSoft }
        }
        Text {
            id: value
            visible: row.accessory === "value"
            anchors { right: parent.right; verticalCenter: parent.verticalCenter }
            text: row.item.value || ""
            font.pixelSize: 16 * sheetView.textScale
            font.family: sheetView.fontFamily
            color: sheetView.inkSoft
            Accessible.ignored: true
        }
    }

    Rectangle {
        visible: !row.last
        anchors { left: parent.left; leftMargin: 20; right: parent.right; bottom: parent.bottom }
        height: 1
        color: sheetView.line
    }
}
