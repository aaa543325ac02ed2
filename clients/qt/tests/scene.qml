// The tests' app: a green screen whose whole area is a button (taps counted), the sheet's
// view over it, and a sheet of the app's own, opened by the tests that use it.
import QtQuick
import Sheetd

Item {
    id: root
    width: 540
    height: 960
    required property string socketPath
    property int appTaps: 0
    property alias view: view
    property alias own: own

    Rectangle {
        anchors.fill: parent
        color: "#2d6a4f"
        MouseArea {
            anchors.fill: parent
            onClicked: root.appTaps++
        }
    }

    SheetView {
        id: view
        anchors.fill: parent
        socket: root.socketPath
    }

    Sheet {
        id: own
        socket: root.socketPath
        title: "Panel"
        items: [
            { id: "wifi", label: "Wi-Fi", subtitle: "Home network", icon: "network-wireless-symbolic", accessory: "toggle", on: true, section: "Connections" },
            { id: "bluetooth", label: "Bluetooth", accessory: "check", on: false },
            { id: "brightness", label: "Brightness", accessory: "value", value: "80 %", section: "Display" },
            { id: "about", label: "About", accessory: "chevron" },
            { id: "reset", label: "Reset", disabled: true }
        ]
    }
}
