// The panel app: a QML scene with the sheet, full screen (eglfs and linuxfb are always).
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QtQml/qqmlextensionplugin.h>

// The Sheetd module, linked in statically.
Q_IMPORT_QML_PLUGIN(SheetdPlugin)

int main(int argc, char *argv[]) {
    QGuiApplication app(argc, argv);
    app.setApplicationName(QStringLiteral("sheetd-panel"));
    QQmlApplicationEngine engine;
    QObject::connect(&engine, &QQmlApplicationEngine::objectCreationFailed, &app, [] { QCoreApplication::exit(1); },
                     Qt::QueuedConnection);
    // Where qt_add_qml_module put the app's own module (loadFromModule is Qt 6.5's).
    engine.load(QUrl(QStringLiteral("qrc:/qt-project.org/imports/Panel/Main.qml")));
    return app.exec();
}
