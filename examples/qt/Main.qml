// A car panel's screen: the app's own controls, and over them the sheet sheetd drives, here a
// sheet of the app's own (climate settings) that opens from a button and answers its rows.
import QtQuick
import Sheetd

Window {
    id: window
    width: 1280
    height: 720
    visible: true
    visibility: Window.FullScreen
    title: qsTr("Panel")
    color: "#14213d"

    Text {
        id: said
        anchors { left: parent.left; top: parent.top; margins: 48 }
        color: "#ffffff"
        font.pixelSize: 32
        text: qsTr("Tap Climate, or swipe up from the bottom edge.")
    }

    Rectangle {
        id: button
        anchors { left: parent.left; top: said.bottom; margins: 48 }
        width: 240
        height: 96
        radius: 16
        color: tap.pressed ? "#fca311" : "#e5e5e5"
        Text { anchors.centerIn: parent; text: qsTr("Climate"); font.pixelSize: 28 }
        Accessible.role: Accessible.Button
        Accessible.name: qsTr("Climate")
        TapHandler {
            id: tap
            onTapped: climate.isOpen ? climate.present("half") : climate.open()
        }
    }

    // The daemon's sheet, drawn over the app; touches on the region it takes go to the daemon.
    SheetView {
        anchors.fill: parent
    }

    // The app's own sheet: its rows, and what a tap on each does.
    Sheet {
        id: climate
        title: qsTr("Climate")
        items: [
            { id: "ac", label: qsTr("Air conditioning"), icon: "weather-few-clouds-symbolic", accessory: "toggle", on: true, section: qsTr("Cabin") },
            { id: "recirculate", label: qsTr("Recirculate air"), accessory: "toggle", on: false },
            { id: "temperature", label: qsTr("Temperature"), accessory: "value", value: "21 °C" },
            { id: "seat", label: qsTr("Seat heating"), subtitle: qsTr("Driver"), accessory: "chevron", section: qsTr("Seats") }
        ]
        onItemToggled: (item, on) => said.text = qsTr("%1 is %2.").arg(item).arg(on ? qsTr("on") : qsTr("off"))
        onItemTapped: (item) => said.text = qsTr("You touched %1.").arg(item)
        onProblemChanged: if (problem) said.text = problem
    }
}
