// SheetView and Sheet against the real daemon, in a scene under Qt's offscreen platform: the
// content drawn (screenshots kept to look at), a fling that dismisses, a tap that reaches the
// sheet's owner, a non-modal sheet that lets a touch through to the app, the daemon restarted
// under the app, and what a screen reader reads. Every wait is for a state, within a patience
// that only a broken daemon or module exhausts.
#include <QAccessible>
#include <QDeadlineTimer>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalSocket>
#include <QPointingDevice>
#include <QProcess>
#include <QQmlEngine>
#include <QQuickItem>
#include <QQuickView>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <qpa/qwindowsysteminterface.h>
#include <QtTest>
#include <functional>
#include <memory>

namespace {

constexpr int patienceMilliseconds = 60000;

bool waitFor(const std::function<bool()> &condition) {
    QDeadlineTimer deadline(patienceMilliseconds);
    while (!condition()) {
        if (deadline.hasExpired()) return false;
        QTest::qWait(10);
    }
    return true;
}

/// One varlink call, waited for (the tests' own client: the module under test is not used to
/// check itself).
QJsonObject call(const QString &socketPath, const QString &method, const QJsonObject &parameters = {}) {
    QLocalSocket socket;
    socket.connectToServer(socketPath);
    if (!socket.waitForConnected(patienceMilliseconds)) return {{QStringLiteral("error"), socket.errorString()}};
    QByteArray message = QJsonDocument(QJsonObject{{QStringLiteral("method"), method}, {QStringLiteral("parameters"), parameters}})
                             .toJson(QJsonDocument::Compact);
    message.append('\0');
    socket.write(message);
    QByteArray reply;
    while (!reply.contains('\0') && socket.waitForReadyRead(patienceMilliseconds)) reply += socket.readAll();
    return QJsonDocument::fromJson(reply.left(reply.indexOf('\0'))).object();
}

/// The real sheetd, on a socket in a folder of its own.
class Daemon {
public:
    explicit Daemon(const QStringList &arguments, const QString &folder = QString()) : m_arguments(arguments) {
        m_folder = folder.isEmpty() ? m_temporary.path() : folder;
        start();
    }
    ~Daemon() { stop(); }

    QString socketPath() const { return m_folder + QStringLiteral("/io.sheetd.Sheet"); }
    QString folder() const { return m_folder; }
    QString log() const {
        QFile file(m_folder + QStringLiteral("/sheetd.log"));
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
    }

    void start() {
        m_process.setProgram(qEnvironmentVariable("SHEETD_BIN"));
        m_process.setArguments(QStringList{QStringLiteral("--socket"), socketPath(), QStringLiteral("--config"), QStringLiteral("/dev/null")}
                               + m_arguments);
        m_process.setStandardErrorFile(m_folder + QStringLiteral("/sheetd.log"), QIODevice::Append);
        m_process.start();
        m_started = m_process.waitForStarted() && waitFor([this] {
            return call(socketPath(), QStringLiteral("io.sheetd.Sheet.GetState")).contains(QStringLiteral("parameters"));
        });
    }
    bool started() const { return m_started; }

    void stop() {
        if (m_process.state() == QProcess::NotRunning) return;
        m_process.terminate();
        m_process.waitForFinished(patienceMilliseconds);
    }

    QJsonObject state() { return call(socketPath(), QStringLiteral("io.sheetd.Sheet.GetState"))[QStringLiteral("parameters")][QStringLiteral("state")].toObject(); }
    /// The gestures the daemon has recognised (GetStats).
    int gestures() { return call(socketPath(), QStringLiteral("io.sheetd.Sheet.GetStats"))[QStringLiteral("parameters")][QStringLiteral("stats")][QStringLiteral("gestures")].toInt(); }

    /// `sheetctl content set FILE`, as a person sets it.
    bool setContent(const QString &file) {
        QProcess sheetctl;
        sheetctl.start(qEnvironmentVariable("SHEETCTL_BIN"), {QStringLiteral("content"), QStringLiteral("set"), file,
                                                             QStringLiteral("--socket"), socketPath()});
        return sheetctl.waitForFinished(patienceMilliseconds) && sheetctl.exitCode() == 0;
    }

private:
    QTemporaryDir m_temporary;
    QString m_folder;
    QStringList m_arguments;
    QProcess m_process;
    bool m_started = false;
};

/// The scene: the app (a green button over the whole screen) and the sheet's view over it.
class Scene {
public:
    explicit Scene(const QString &socketPath) {
        m_view.setInitialProperties({{QStringLiteral("socketPath"), socketPath}});
        m_view.setSource(QUrl::fromLocalFile(QStringLiteral(SHEETD_QT_SCENE)));
        for (const QQmlError &error : m_view.errors()) qWarning("%s", qPrintable(error.toString()));
        m_view.show();
    }
    bool loaded() const { return m_view.rootObject() != nullptr; }
    QQuickView &window() { return m_view; }
    QObject *root() const { return m_view.rootObject(); }
    QObject *view() const { return root()->property("view").value<QObject *>(); }
    QObject *own() const { return root()->property("own").value<QObject *>(); }
    QVariantMap state() const { return view()->property("sheetState").toMap(); }
    QVariantMap content() const { return view()->property("sheetContent").toMap(); }
    /// The view's touches reach the daemon (its touch device is open).
    bool forwarding() const { return view()->property("follower").value<QObject *>()->property("forwarding").toBool(); }
    bool restsAt(const QString &detent) const {
        const QVariantMap now = state();
        return now.value(QStringLiteral("state")) == QStringLiteral("resting") && now.value(QStringLiteral("detent")) == detent
            && now.value(QStringLiteral("inputActive")) == false;
    }
    /// Where row `index` of the list is now, in the view's pixels (its middle).
    QPointF row(int index) const {
        const QVariantMap now = state();
        const QVariantMap list = now.value(QStringLiteral("list")).toMap();
        const QVariantList items = content().value(QStringLiteral("items")).toList();
        qreal y = now.value(QStringLiteral("top")).toReal() + list.value(QStringLiteral("titleBar")).toReal() - list.value(QStringLiteral("scroll")).toReal();
        for (int at = 0; at <= index && at < items.size(); ++at) {
            const QVariantMap item = items[at].toMap();
            const QVariantMap before = at > 0 ? items[at - 1].toMap() : QVariantMap();
            if (!item.value(QStringLiteral("section")).toString().isEmpty()
                && (at == 0 || before.value(QStringLiteral("section")) != item.value(QStringLiteral("section"))))
                y += list.value(QStringLiteral("headerHeight")).toReal();
            const qreal height = item.contains(QStringLiteral("subtitle")) ? list.value(QStringLiteral("twoLineItemHeight")).toReal()
                                                                            : list.value(QStringLiteral("itemHeight")).toReal();
            if (at == index) return {m_view.width() / 4.0, y + height / 2};
            y += height;
        }
        return {};
    }

private:
    QQuickView m_view;
};

/// A finger on the window, with the times the test gives it (milliseconds), through the way a
/// platform plugin delivers a touchscreen's events (QWindowSystemInterface): the same gesture
/// on a loaded machine as on an idle one.
class Finger {
public:
    explicit Finger(QWindow *window) : m_window(window) {}
    void down(QPointF at, ulong time) { send(QEventPoint::Pressed, at, time); }
    void move(QPointF at, ulong time) { send(QEventPoint::Updated, at, time); }
    void up(QPointF at, ulong time) { send(QEventPoint::Released, at, time); }
    void tap(QPointF at, ulong time) {
        down(at, time);
        up(at, time + 60);
    }

private:
    void send(QEventPoint::State state, QPointF at, ulong time) {
        static QPointingDevice *device = QTest::createTouchDevice();
        QWindowSystemInterface::TouchPoint point;
        point.id = 1;
        point.state = state;
        point.pressure = state == QEventPoint::Released ? 0 : 1;
        const QPointF global = m_window->mapToGlobal(at);
        point.area = QRectF(global - QPointF(4, 4), QSizeF(8, 8));
        point.normalPosition = QPointF(global.x() / m_window->width(), global.y() / m_window->height());
        QWindowSystemInterface::handleTouchEvent<QWindowSystemInterface::SynchronousDelivery>(m_window, time, device, {point});
    }
    QWindow *m_window;
};

QString shots() {
    const QString folder = qEnvironmentVariable("SHEETD_QT_SHOTS", QStringLiteral(SHEETD_QT_DEFAULT_SHOTS));
    QDir().mkpath(folder);
    return folder;
}

/// Every accessible below `node`: its role, name and whether it is checked, one line each.
void accessibleTree(QAccessibleInterface *node, QStringList &lines, int depth = 0) {
    if (!node || depth > 32) return;
    if (node->role() != QAccessible::Client || !node->text(QAccessible::Name).isEmpty())
        lines.append(QStringLiteral("%1 %2%3").arg(QString::number(int(node->role()), 16), node->text(QAccessible::Name),
                                                    node->state().checked ? QStringLiteral(" checked") : QString()));
    for (int index = 0; index < node->childCount(); ++index) accessibleTree(node->child(index), lines, depth + 1);
}

} // namespace

class SheetViewTests : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY2(QFileInfo(qEnvironmentVariable("SHEETD_BIN")).isExecutable(), "SHEETD_BIN names the sheetd to test against");
        QVERIFY2(QFileInfo(qEnvironmentVariable("SHEETCTL_BIN")).isExecutable(), "SHEETCTL_BIN names its sheetctl");
        // The module `import Sheetd` loads: the first folder of the engine's import path with a
        // Sheetd/qmldir (the build's, through QML_IMPORT_PATH, or the installed one), and the
        // one SHEETD_QML_MODULE names, when it names one.
        QQmlEngine engine;
        QString module;
        for (const QString &path : engine.importPathList()) {
            if (QFileInfo::exists(path + QStringLiteral("/Sheetd/qmldir"))) {
                module = QFileInfo(path + QStringLiteral("/Sheetd")).canonicalFilePath();
                break;
            }
        }
        qInfo("import Sheetd: %s", qPrintable(module.isEmpty() ? QStringLiteral("nowhere") : module));
        const QString expected = qEnvironmentVariable("SHEETD_QML_MODULE");
        if (!expected.isEmpty())
            QVERIFY2(module == QFileInfo(expected).canonicalFilePath(),
                     qPrintable(QStringLiteral("import Sheetd loads %1, not %2").arg(module, expected)));
    }

    /// The content the daemon holds, drawn: the card where the state puts it over the dimmed
    /// app, its title, rows and accessories; Korean and Arabic (right to left), light and dark.
    void drawsTheContent_data() {
        QTest::addColumn<QString>("theme");
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("rightToLeft");
        QTest::newRow("light-settings") << "light" << "settings.yaml" << false;
        QTest::newRow("dark-korean") << "dark" << "korean.yaml" << false;
        QTest::newRow("light-arabic") << "light" << "arabic.yaml" << true;
    }
    void drawsTheContent() {
        QFETCH(QString, theme);
        QFETCH(QString, file);
        QFETCH(bool, rightToLeft);
        Daemon daemon({QStringLiteral("--input"), QStringLiteral("none"), QStringLiteral("--screen"), QStringLiteral("540x960"),
                       QStringLiteral("--theme"), theme});
        QVERIFY2(daemon.started(), qPrintable(daemon.log()));
        QVERIFY(daemon.setContent(QStringLiteral(SHEETD_QT_EXAMPLES "/") + file));
        Scene scene(daemon.socketPath());
        QVERIFY(scene.loaded());
        QVERIFY2(waitFor([&] { return scene.restsAt(QStringLiteral("half")) && !scene.content().isEmpty(); }),
                 qPrintable(scene.view()->property("problem").toString() + daemon.log()));
        // The view told the daemon its size: the screen is the window.
        const QVariantMap screen = scene.state().value(QStringLiteral("screen")).toMap();
        QCOMPARE(screen.value(QStringLiteral("width")).toInt(), 540);
        QCOMPARE(screen.value(QStringLiteral("height")).toInt(), 960);
        QImage image;
        // Drawn once the scene has the content's rows (the first frame may precede them).
        QVERIFY(waitFor([&] {
            image = scene.window().grabWindow();
            return !image.isNull() && image.pixelColor(540 / 4, qRound(scene.state().value(QStringLiteral("top")).toReal()) + 2)
                                          != image.pixelColor(5, 5);
        }));
        image.save(shots() + QStringLiteral("/%1.png").arg(QString::fromLatin1(QTest::currentDataTag())));

        const QVariantMap state = scene.state();
        const int top = qRound(state.value(QStringLiteral("top")).toReal());
        const qreal dim = state.value(QStringLiteral("dim")).toReal();
        // The dim over the app's green (#2d6a4f).
        const QColor over = image.pixelColor(5, 5);
        QVERIFY2(qAbs(over.red() - qRound(0x2d * (1 - dim))) <= 2 && qAbs(over.green() - qRound(0x6a * (1 - dim))) <= 2,
                 qPrintable(QStringLiteral("the dim at %1 over the app: %2").arg(dim).arg(over.name())));
        // The card's top row where the state puts it, in the theme's colour.
        const QColor card = theme == QLatin1String("dark") ? QColor(0x38, 0x38, 0x38) : QColor(Qt::white);
        int first = -1;
        for (int y = 0; y < image.height() && first < 0; ++y)
            if (image.pixelColor(540 / 4, y) == card) first = y;
        QVERIFY2(qAbs(first - top) <= 2, qPrintable(QStringLiteral("the card's top row is %1, the state's %2").arg(first).arg(top)));
        // The title's ink: from the start of the line, the left in Latin and Korean, the right in Arabic.
        const int barTop = top, barBottom = top + qRound(state.value(QStringLiteral("list")).toMap().value(QStringLiteral("titleBar")).toReal());
        int left = image.width(), right = -1;
        for (int y = barTop + 8; y < barBottom - 8; ++y) {
            for (int x = 60; x < image.width() - 60; ++x) {
                const QColor pixel = image.pixelColor(x, y);
                if (qAbs(pixel.lightness() - card.lightness()) > 96) {
                    left = qMin(left, x);
                    right = qMax(right, x);
                }
            }
        }
        QVERIFY2(right > left, "the title is drawn");
        if (rightToLeft) QVERIFY2(image.width() - right < left, qPrintable(QStringLiteral("right to left: ink from %1 to %2").arg(left).arg(right)));
        else QVERIFY2(left < image.width() - right, qPrintable(QStringLiteral("left to right: ink from %1 to %2").arg(left).arg(right)));
    }

    /// A fast swipe down on the card, through the view: the daemon's recogniser dismisses.
    void aFlingDismisses() {
        Daemon daemon({QStringLiteral("--input"), QStringLiteral("none"), QStringLiteral("--screen"), QStringLiteral("540x960")});
        QVERIFY2(daemon.started(), qPrintable(daemon.log()));
        QVERIFY(daemon.setContent(QStringLiteral(SHEETD_QT_EXAMPLES "/settings.yaml")));
        Scene scene(daemon.socketPath());
        QVERIFY(scene.loaded());
        QVERIFY(waitFor([&] { return scene.restsAt(QStringLiteral("half")) && !scene.content().isEmpty(); }));
        // Forwarding: the daemon leaves the seat's touchscreens to the app while the view is there.
        QVERIFY(waitFor([&] { return scene.forwarding(); }));
        QVERIFY(waitFor([&] {
            const QJsonArray devices = call(daemon.socketPath(), QStringLiteral("io.sheetd.Sheet.ListDevices"))[QStringLiteral("parameters")][QStringLiteral("devices")].toArray();
            return std::any_of(devices.begin(), devices.end(), [](const QJsonValue &device) {
                return device[QStringLiteral("name")].toString().startsWith(QStringLiteral("qt touch"));
            });
        }));
        const qreal top = scene.state().value(QStringLiteral("top")).toReal();
        // The rows drawn now: a drag moves the card, and lays none of them out again.
        std::function<void(QQuickItem *, QSet<QQuickItem *> &)> collect = [&](QQuickItem *item, QSet<QQuickItem *> &rows) {
            if (QString::fromLatin1(item->metaObject()->className()).startsWith(QLatin1String("SheetRow"))) rows.insert(item);
            for (QQuickItem *child : item->childItems()) collect(child, rows);
        };
        QSet<QQuickItem *> before, during;
        collect(scene.window().contentItem(), before);
        QVERIFY(before.size() >= 5);
        Finger finger(&scene.window());
        QPointF at(270, top + 40);
        ulong time = 10000;
        finger.down(at, time);
        for (int step = 0; step < 8; ++step) {
            at.ry() += 50;
            time += 10;
            finger.move(at, time);
        }
        QVERIFY(waitFor([&] { return scene.state().value(QStringLiteral("state")) == QStringLiteral("dragging")
                                     && scene.state().value(QStringLiteral("top")).toReal() > top + 100; }));
        collect(scene.window().contentItem(), during);
        QVERIFY2(during == before, "the rows drawn before the drag are the ones drawn during it");
        finger.up(at, time + 5);
        QVERIFY2(waitFor([&] { return scene.restsAt(QStringLiteral("hidden")); }),
                 qPrintable(QJsonDocument(daemon.state()).toJson(QJsonDocument::Compact)
                            + QJsonDocument(call(daemon.socketPath(), QStringLiteral("io.sheetd.Sheet.GetStats"))).toJson(QJsonDocument::Compact)
                            + daemon.log() + scene.view()->property("problem").toString()));
        QCOMPARE(daemon.state()[QStringLiteral("detent")].toString(), QStringLiteral("hidden"));
    }

    /// A sheet of the app's own, opened from QML: a tap on a row and a tap on a switch reach
    /// it, as its program's events.
    void aTapReachesTheOwner() {
        Daemon daemon({QStringLiteral("--input"), QStringLiteral("none"), QStringLiteral("--screen"), QStringLiteral("540x960")});
        QVERIFY2(daemon.started(), qPrintable(daemon.log()));
        Scene scene(daemon.socketPath());
        QVERIFY(scene.loaded());
        QObject *own = scene.own();
        QSignalSpy tapped(own, SIGNAL(itemTapped(QString)));
        QSignalSpy toggled(own, SIGNAL(itemToggled(QString, bool)));
        QMetaObject::invokeMethod(own, "open");
        QVERIFY2(waitFor([&] {
            return own->property("isOpen").toBool() && scene.state().value(QStringLiteral("sheet")) == own->property("sheet")
                && scene.restsAt(QStringLiteral("half")) && scene.content().value(QStringLiteral("title")) == QStringLiteral("Panel");
        }), qPrintable(own->property("problem").toString() + daemon.log()));
        QVERIFY(waitFor([&] { return scene.forwarding(); }));
        Finger finger(&scene.window());
        finger.tap(scene.row(3), 20000);
        QVERIFY2(waitFor([&] { return tapped.count() == 1; }), qPrintable(daemon.log()));
        QCOMPARE(tapped.at(0).at(0).toString(), QStringLiteral("about"));
        finger.tap(scene.row(0), 21000);
        QVERIFY(waitFor([&] { return toggled.count() == 1; }));
        QCOMPARE(toggled.at(0).at(0).toString(), QStringLiteral("wifi"));
        QCOMPARE(toggled.at(0).at(1).toBool(), false);
        // The view draws the switch flipped: its content followed the event.
        QVERIFY(waitFor([&] { return scene.content().value(QStringLiteral("items")).toList().value(0).toMap().value(QStringLiteral("on")) == false; }));
        QCOMPARE(scene.root()->property("appTaps").toInt(), 0);
    }

    /// A sheet that is not modal takes only the card: a touch above it reaches the app's
    /// button, and the daemon hears nothing of it.
    void aNonModalSheetPassesATouchToTheApp() {
        Daemon daemon({QStringLiteral("--input"), QStringLiteral("none"), QStringLiteral("--screen"), QStringLiteral("540x960"),
                       QStringLiteral("--modal"), QStringLiteral("false")});
        QVERIFY2(daemon.started(), qPrintable(daemon.log()));
        QVERIFY(daemon.setContent(QStringLiteral(SHEETD_QT_EXAMPLES "/settings.yaml")));
        Scene scene(daemon.socketPath());
        QVERIFY(scene.loaded());
        QVERIFY(waitFor([&] { return scene.restsAt(QStringLiteral("half")) && !scene.content().isEmpty() && scene.forwarding(); }));
        const qreal top = scene.state().value(QStringLiteral("top")).toReal();
        Finger finger(&scene.window());
        finger.tap(QPointF(270, top / 2), 30000);
        QVERIFY(waitFor([&] { return scene.root()->property("appTaps").toInt() == 1; }));
        QCOMPARE(daemon.gestures(), 0);
        // And a tap on the card is the sheet's, not the app's.
        finger.tap(scene.row(0), 31000);
        QVERIFY(waitFor([&] { return daemon.gestures() > 0; }));
        QCOMPARE(scene.root()->property("appTaps").toInt(), 1);
    }

    /// The daemon restarted under the app: the view follows it (the shared sheet's content
    /// back from the state directory), and the app's own sheet is opened again on it.
    void followsADaemonRestart() {
        QTemporaryDir state;
        const QStringList arguments{QStringLiteral("--input"), QStringLiteral("none"), QStringLiteral("--screen"), QStringLiteral("540x960"),
                                    QStringLiteral("--state-directory"), state.path()};
        Daemon daemon(arguments);
        QVERIFY2(daemon.started(), qPrintable(daemon.log()));
        Scene scene(daemon.socketPath());
        QVERIFY(scene.loaded());
        QObject *own = scene.own();
        QMetaObject::invokeMethod(own, "open");
        QVERIFY(waitFor([&] { return own->property("shown").toBool() && scene.restsAt(QStringLiteral("half")); }));
        daemon.stop();
        QVERIFY(waitFor([&] { return !scene.view()->property("connected").toBool(); }));
        daemon.start();
        QVERIFY2(daemon.started(), qPrintable(daemon.log()));
        QVERIFY2(waitFor([&] {
            return scene.view()->property("connected").toBool() && own->property("shown").toBool() && scene.restsAt(QStringLiteral("half"))
                && scene.content().value(QStringLiteral("title")) == QStringLiteral("Panel");
        }), qPrintable(own->property("problem").toString() + daemon.log()));
        QVERIFY(!own->property("sheet").toString().isEmpty());
        QVERIFY(waitFor([&] { return scene.forwarding(); }));
        QSignalSpy tapped(own, SIGNAL(itemTapped(QString)));
        Finger finger(&scene.window());
        finger.tap(scene.row(3), 40000);
        QVERIFY(waitFor([&] { return tapped.count() == 1; }));
    }

    /// Past the daemon's idle timeout (0.2 s here, 10 s by default): the view's calls
    /// connection, which the daemon closes once it has made no call for that long, opens again
    /// for the next call (the view's size as the screen's, twice). The second is sent as the
    /// daemon says it closes the first: it may cross the close unread, and is then sent again.
    /// The input connection holds a device, so it stays open and a tap still reaches the daemon.
    void outlivesTheDaemonsIdleTimeout() {
        Daemon daemon({QStringLiteral("--input"), QStringLiteral("none"), QStringLiteral("--screen"), QStringLiteral("540x960"),
                       QStringLiteral("--client-idle-timeout"), QStringLiteral("0.2")});
        QVERIFY2(daemon.started(), qPrintable(daemon.log()));
        QVERIFY(daemon.setContent(QStringLiteral(SHEETD_QT_EXAMPLES "/settings.yaml")));
        Scene scene(daemon.socketPath());
        QVERIFY(scene.loaded());
        QVERIFY(waitFor([&] { return scene.restsAt(QStringLiteral("half")) && !scene.content().isEmpty() && scene.forwarding(); }));
        const QString idle = QStringLiteral("made no call for 0.2 s; closed");
        for (const int height : {900, 960}) {
            const int closed = daemon.log().count(idle);
            scene.root()->setProperty("height", height);
            QVERIFY2(waitFor([&] {
                return scene.state().value(QStringLiteral("screen")).toMap().value(QStringLiteral("height")).toInt() == height
                    && scene.restsAt(QStringLiteral("half"));
            }), qPrintable(daemon.log()));
            QVERIFY2(waitFor([&] { return daemon.log().count(idle) > closed; }), qPrintable(daemon.log()));
        }
        QVERIFY(scene.forwarding());
        Finger finger(&scene.window());
        finger.tap(scene.row(0), 50000);
        QVERIFY2(waitFor([&] { return daemon.gestures() > 0; }), qPrintable(daemon.log()));
        QCOMPARE(scene.root()->property("appTaps").toInt(), 0);
    }

    /// Keys while a modal sheet is shown go to the daemon: Tab puts the focus (and its ring) on
    /// the first element, Down moves it on, Enter activates the switch it is on.
    void keysMoveTheFocus() {
        Daemon daemon({QStringLiteral("--input"), QStringLiteral("none"), QStringLiteral("--screen"), QStringLiteral("540x960")});
        QVERIFY2(daemon.started(), qPrintable(daemon.log()));
        Scene scene(daemon.socketPath());
        QVERIFY(scene.loaded());
        QObject *own = scene.own();
        QSignalSpy toggled(own, SIGNAL(itemToggled(QString, bool)));
        QMetaObject::invokeMethod(own, "open");
        QVERIFY(waitFor([&] { return scene.restsAt(QStringLiteral("half")) && scene.content().value(QStringLiteral("title")) == QStringLiteral("Panel"); }));
        const auto focus = [&] {
            const QVariantMap state = scene.state();
            return state.value(QStringLiteral("focusVisible")).toBool() ? state.value(QStringLiteral("focus")).toString() : QString();
        };
        QTest::keyClick(&scene.window(), Qt::Key_Tab);
        QVERIFY2(waitFor([&] { return !focus().isEmpty(); }), qPrintable(scene.view()->property("problem").toString() + daemon.log()));
        // Down from wherever Tab put it, until it is on the switch.
        for (int step = 0; step < 6 && focus() != QLatin1String("wifi"); ++step) {
            const QString before = focus();
            QTest::keyClick(&scene.window(), Qt::Key_Down);
            QVERIFY(waitFor([&] { return focus() != before; }));
        }
        QCOMPARE(focus(), QStringLiteral("wifi"));
        QTest::keyClick(&scene.window(), Qt::Key_Return);
        QVERIFY(waitFor([&] { return toggled.count() == 1; }));
        QCOMPARE(toggled.at(0).at(1).toBool(), false);
    }

    /// What a screen reader reads of the item (Qt's accessibility, which its AT-SPI bridge
    /// gives Orca): the dialog named by the title, the close button, a list per section, a
    /// check box for each switch and check (checked when on), a button for each other row.
    void theAccessibleTree() {
        Daemon daemon({QStringLiteral("--input"), QStringLiteral("none"), QStringLiteral("--screen"), QStringLiteral("540x960")});
        QVERIFY2(daemon.started(), qPrintable(daemon.log()));
        Scene scene(daemon.socketPath());
        QVERIFY(scene.loaded());
        QObject *own = scene.own();
        QMetaObject::invokeMethod(own, "open");
        QVERIFY(waitFor([&] { return scene.restsAt(QStringLiteral("half")) && scene.content().value(QStringLiteral("title")) == QStringLiteral("Panel"); }));
        QStringList lines;
        QVERIFY(waitFor([&] {
            lines.clear();
            accessibleTree(QAccessible::queryAccessibleInterface(&scene.window()), lines);
            return lines.contains(QStringLiteral("%1 About").arg(QString::number(int(QAccessible::Button), 16)));
        }));
        const auto has = [&](QAccessible::Role role, const QString &rest) {
            return lines.contains(QStringLiteral("%1 %2").arg(QString::number(int(role), 16), rest));
        };
        QVERIFY2(has(QAccessible::Dialog, QStringLiteral("Panel")), qPrintable(lines.join('\n')));
        QVERIFY2(has(QAccessible::Button, QStringLiteral("Close")), qPrintable(lines.join('\n')));
        QVERIFY2(has(QAccessible::List, QStringLiteral("Connections")), qPrintable(lines.join('\n')));
        QVERIFY2(has(QAccessible::List, QStringLiteral("Display")), qPrintable(lines.join('\n')));
        QVERIFY2(has(QAccessible::CheckBox, QStringLiteral("Wi-Fi checked")), qPrintable(lines.join('\n')));
        QVERIFY2(has(QAccessible::CheckBox, QStringLiteral("Bluetooth")), qPrintable(lines.join('\n')));
        QVERIFY2(has(QAccessible::Button, QStringLiteral("Brightness")), qPrintable(lines.join('\n')));
        // Activating a row, as a screen reader does, is the daemon's tap on it.
        QSignalSpy toggled(own, SIGNAL(itemToggled(QString, bool)));
        QAccessibleInterface *wifi = nullptr;
        std::function<void(QAccessibleInterface *)> find = [&](QAccessibleInterface *node) {
            if (!node || wifi) return;
            if (node->role() == QAccessible::CheckBox && node->text(QAccessible::Name) == QLatin1String("Wi-Fi")) wifi = node;
            for (int index = 0; index < node->childCount(); ++index) find(node->child(index));
        };
        find(QAccessible::queryAccessibleInterface(&scene.window()));
        QVERIFY(wifi && wifi->actionInterface());
        wifi->actionInterface()->doAction(QAccessibleActionInterface::toggleAction());
        QVERIFY(waitFor([&] { return toggled.count() == 1; }));
    }
};

QTEST_MAIN(SheetViewTests)
#include "tst_sheetview.moc"
