#include "sheetfollower.h"
#include "sheeticons.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QQmlEngine>
#include <QtGlobal>
#include <ctime>
#include <utility>

namespace Sheetd {

QString sheetSocketPath(const QString &path, const QString &seat) {
    // As every client of the project finds it (SheetClient.socketPath, the Python client's).
    if (!path.isEmpty()) return path;
    if (!seat.isEmpty())
        return seat == QLatin1String("seat0") ? QStringLiteral("/run/sheetd/io.sheetd.Sheet") : QStringLiteral("/run/sheetd/%1/io.sheetd.Sheet").arg(seat);
    const QString named = qEnvironmentVariable("SHEETD_SOCKET");
    return named.isEmpty() ? QStringLiteral("/run/sheetd/io.sheetd.Sheet") : named;
}

static QJsonValue sheetOf(const QJsonObject &object) {
    const QJsonValue sheet = object.value(QLatin1String("sheet"));
    return sheet.isString() ? sheet : QJsonValue(QJsonValue::Null);
}

bool ContentMirror::follow(const QJsonObject &state, const QJsonArray &events) {
    const QJsonValue list = state.value(QLatin1String("list"));
    if (!list.isObject()) {
        m_content.reset();
        m_revision.reset();
        return false;
    }
    const int revision = list.toObject().value(QLatin1String("revision")).toInt();
    const QJsonValue sheet = sheetOf(state);
    if (sheet != m_sheet) {
        // Another program's sheet shown (or the shared one back): its revisions are its own.
        m_sheet = sheet;
        m_content.reset();
        m_revision.reset();
        m_failed.reset();
    }
    const bool ask = m_failed != revision;
    if (!m_content || !m_revision) return ask;
    // A fetch can be ahead of the states still queued on the stream: their swaps are in it.
    if (*m_revision >= revision) return false;
    QJsonArray items = m_content->value(QLatin1String("items")).toArray();
    const auto indexOf = [&items](const QString &id) {
        for (qsizetype index = 0; index < items.size(); ++index)
            if (items[index].toObject().value(QLatin1String("id")).toString() == id) return index;
        return qsizetype(-1);
    };
    // Each swap and each toggle flipped is one revision.
    int steps = 0;
    for (const QJsonValue &value : events) {
        const QJsonObject event = value.toObject();
        const QString kind = event.value(QLatin1String("event")).toString();
        if (kind == QLatin1String("reorder-moved")) {
            const QJsonValue from = event.value(QLatin1String("from")), to = event.value(QLatin1String("to"));
            if (!from.isDouble() || !to.isDouble() || from.toInt() < 0 || from.toInt() >= items.size() || to.toInt() < 0
                || to.toInt() >= items.size()) {
                m_revision.reset();
                return ask;
            }
        } else if (kind == QLatin1String("item-toggled")) {
            if (!event.value(QLatin1String("on")).isBool() || indexOf(event.value(QLatin1String("item")).toString()) < 0) {
                m_revision.reset();
                return ask;
            }
        } else {
            continue;
        }
        ++steps;
    }
    if (*m_revision + steps != revision) return ask;
    for (const QJsonValue &value : events) {
        const QJsonObject event = value.toObject();
        const QString kind = event.value(QLatin1String("event")).toString();
        if (kind == QLatin1String("reorder-moved")) {
            const qsizetype from = event.value(QLatin1String("from")).toInt(), to = event.value(QLatin1String("to")).toInt();
            const QJsonValue moved = items[from];
            items[from] = items[to];
            items[to] = moved;
        } else if (kind == QLatin1String("item-toggled")) {
            const qsizetype index = indexOf(event.value(QLatin1String("item")).toString());
            QJsonObject item = items[index].toObject();
            item.insert(QLatin1String("on"), event.value(QLatin1String("on")));
            items[index] = item;
        }
    }
    if (steps > 0) m_content->insert(QLatin1String("items"), items);
    m_revision = revision;
    return false;
}

void ContentMirror::fetched(const QJsonObject &content, int revision, const QJsonValue &sheet) {
    if (sheet != m_sheet) return;
    m_content = content;
    m_revision = revision;
    m_failed.reset();
}

SheetFollower::SheetFollower(QObject *parent) : QObject(parent) {
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &SheetFollower::start);
    connect(&m_monitor, &VarlinkConnection::closed, this, [this](const QString &why) { stop(why); });
    // Queued: the socket is still telling of its close when `closed` is emitted, and a new
    // connection opened on it then would be closed with the old one.
    connect(&m_calls, &VarlinkConnection::closed, this, &SheetFollower::callsClosed, Qt::QueuedConnection);
    // The calls' connection is closed by the daemon after 10 s without a call: the next call
    // opens it again (callsClosed). The input connection holds a device, so it is not idle;
    // should it close all the same, its devices go with it.
    connect(&m_input, &VarlinkConnection::closed, this, [this](const QString &why) {
        setTouchDevice(std::nullopt);
        m_keysDevice.reset();
        m_declaring = m_keysOpening = false;
        m_daemonHolds.fill(false);
        if (m_connected) say(QStringLiteral("the input socket %1: %2").arg(m_input.path(), why));
    });
}

SheetFollower::~SheetFollower() {
    m_monitor.disconnect(this);
    m_input.disconnect(this);
}

void SheetFollower::componentComplete() {
    // The rows' icons, drawn from the icon theme (SheetRow asks image://sheetd-icons/NAME).
    if (QQmlEngine *engine = qmlEngine(this); engine && !engine->imageProvider(QLatin1String(SheetIcons::name)))
        engine->addImageProvider(QLatin1String(SheetIcons::name), new SheetIcons);
    m_complete = true;
    start();
}

QString SheetFollower::socketPath() const { return sheetSocketPath(m_socket, m_seat); }

void SheetFollower::setSocket(const QString &path) {
    if (path == m_socket) return;
    m_socket = path;
    emit socketChanged();
    stop(QString());
    start();
}

void SheetFollower::setSeat(const QString &seat) {
    if (seat == m_seat) return;
    m_seat = seat;
    emit socketChanged();
    stop(QString());
    start();
}

void SheetFollower::setInputSocket(const QString &path) {
    if (path == m_inputSocket) return;
    m_inputSocket = path;
    emit socketChanged();
    m_input.close();
    setTouchDevice(std::nullopt);
    m_keysDevice.reset();
    declareTouch();
}

void SheetFollower::setMaxRate(int rate) {
    rate = qBound(1, rate, 1000);
    if (rate == m_maxRate) return;
    m_maxRate = rate;
    emit maxRateChanged();
    if (m_monitor.isActive()) {
        stop(QString());
        start();
    }
}

void SheetFollower::setViewSize(const QSizeF &size) {
    if (size == m_viewSize) return;
    m_viewSize = size;
    emit viewSizeChanged();
    setScreen();
    declareTouch();
}

void SheetFollower::setDevicePixelRatio(qreal ratio) {
    if (ratio <= 0 || qFuzzyCompare(ratio, m_ratio)) return;
    m_ratio = ratio;
    emit viewSizeChanged();
    setScreen();
    declareTouch();
}

void SheetFollower::setSetsScreen(bool sets) {
    if (sets == m_setsScreen) return;
    m_setsScreen = sets;
    emit viewSizeChanged();
    setScreen();
}

void SheetFollower::setDeviceName(const QString &name) {
    if (name == m_deviceName) return;
    m_deviceName = name;
    emit deviceNameChanged();
}

void SheetFollower::start() {
    if (!m_complete || m_monitor.isActive()) return;
    m_retry.stop();
    m_monitor.open(socketPath());
    m_monitor.call(QStringLiteral("io.sheetd.Sheet.Monitor"), {{QStringLiteral("maxRate"), m_maxRate}},
                   [this](const VarlinkReply &reply) { followed(reply); }, true);
}

void SheetFollower::stop(const QString &why) {
    const bool wasConnected = m_connected;
    m_monitor.close();
    m_calls.close();
    m_input.close();
    setTouchDevice(std::nullopt);
    m_keysDevice.reset();
    m_declaring = m_keysOpening = m_fetching = false;
    m_declared = QSize();
    m_daemonHolds.fill(false);
    m_mirror.reset();
    m_state = QJsonObject();
    if (wasConnected) {
        // No daemon, no sheet: what was drawn goes, and the app beneath takes every touch.
        m_connected = false;
        m_stateMap.clear();
        m_contentMap.clear();
        emit connectedChanged();
        emit stateChanged();
        emit contentChanged();
    }
    if (!why.isEmpty()) {
        if (wasConnected) say(QStringLiteral("%1: %2").arg(socketPath(), why));
        retryLater();
    }
}

void SheetFollower::retryLater() {
    // Less often the longer the daemon stays away: 0.25 s more each time, up to 2.5 s.
    m_attempts = qMin(m_attempts + 1, 10);
    m_retry.start(250 * m_attempts);
}

void SheetFollower::followed(const VarlinkReply &reply) {
    if (!reply.error.isEmpty()) {
        say(reply.describe(QStringLiteral("Monitor on %1").arg(socketPath())));
        m_monitor.close();
        retryLater();
        return;
    }
    const QJsonObject state = reply.parameters.value(QLatin1String("state")).toObject();
    const QJsonObject screen = state.value(QLatin1String("screen")).toObject();
    if (screen.value(QLatin1String("width")).toDouble() <= 0 || screen.value(QLatin1String("height")).toDouble() <= 0
        || !state.value(QLatin1String("top")).isDouble()) {
        say(QStringLiteral("Monitor on %1: a state without a screen or a top: not drawn").arg(socketPath()));
        return;
    }
    const QJsonArray events = reply.parameters.value(QLatin1String("events")).toArray();
    const std::optional<QJsonObject> contentBefore = m_mirror.content();
    const QJsonValue sheetBefore = m_mirror.sheet();
    if (m_mirror.follow(state, events))
        fetchContent(state.value(QLatin1String("list")).toObject().value(QLatin1String("revision")).toInt());
    m_state = state;
    if (!m_connected) {
        m_connected = true;
        m_attempts = 0;
        emit connectedChanged();
        setScreen();
        declareTouch();
    }
    m_stateMap = state.toVariantMap();
    if (m_mirror.content() != contentBefore || m_mirror.sheet() != sheetBefore) publishContent();
    emit stateChanged();
    for (const QJsonValue &event : events) emit sheetEvent(event.toObject().toVariantMap());
}

void SheetFollower::fetchContent(int revision) {
    if (m_fetching) return;
    m_fetching = true;
    const QJsonValue sheet = m_mirror.sheet();
    QJsonObject parameters;
    if (sheet.isString()) parameters.insert(QStringLiteral("sheet"), sheet);
    call(QStringLiteral("io.sheetd.Sheet.GetContent"), parameters, [this, revision, sheet](const VarlinkReply &reply) {
        m_fetching = false;
        if (!reply.error.isEmpty()) {
            say(reply.describe(QStringLiteral("GetContent")));
            m_mirror.fetchFailed(revision);
            return;
        }
        m_mirror.fetched(reply.parameters.value(QLatin1String("content")).toObject(),
                         reply.parameters.value(QLatin1String("revision")).toInt(), sheetOf(reply.parameters));
        // The states went on meanwhile: what they changed since that revision is asked again.
        if (m_mirror.follow(m_state, {}))
            fetchContent(m_state.value(QLatin1String("list")).toObject().value(QLatin1String("revision")).toInt());
        publishContent();
    });
}

void SheetFollower::publishContent() {
    m_contentMap.clear();
    if (const auto &content = m_mirror.content()) {
        m_contentMap = content->toVariantMap();
        m_contentMap.insert(QStringLiteral("sheet"), m_mirror.sheet().toVariant());
    }
    emit contentChanged();
}

void SheetFollower::setScreen() {
    if (!m_setsScreen || !m_connected) return;
    const int width = qRound(m_viewSize.width() * m_ratio), height = qRound(m_viewSize.height() * m_ratio);
    // The daemon's bounds (SetScreen): a view not laid out yet has no screen to tell.
    if (width < 64 || height < 64 || width > 16384 || height > 16384) return;
    const QJsonObject screen = m_state.value(QLatin1String("screen")).toObject();
    if (screen.value(QLatin1String("width")).toInt() == width && screen.value(QLatin1String("height")).toInt() == height
        && qFuzzyCompare(screen.value(QLatin1String("scale")).toDouble(1), m_ratio))
        return;
    call(QStringLiteral("io.sheetd.Sheet.SetScreen"),
         {{QStringLiteral("width"), width}, {QStringLiteral("height"), height}, {QStringLiteral("scale"), m_ratio}},
         [this](const VarlinkReply &reply) {
             if (!reply.error.isEmpty()) say(reply.describe(QStringLiteral("SetScreen")));
         });
}

void SheetFollower::call(const QString &method, const QJsonObject &parameters, VarlinkConnection::Handler handler) {
    if (!m_calls.isActive()) m_calls.open(socketPath());
    m_calls.call(method, parameters, [this, handler = std::move(handler)](const VarlinkReply &reply) {
        m_callsAnswered = true;
        if (handler) handler(reply);
    });
}

// The daemon closes a connection that has made no call for its idle timeout: a call sent as it
// does crosses the close and is never read, and its answer never comes. What the view asks on
// this connection is derived from the state, so it is asked again on a new one: the content (a
// fetch that was waiting) and the screen's size (sent if the state's still differs). Once per
// answer the closed connection gave, so that a daemon that closes every new connection is not
// asked in a loop. A Focus (a screen reader's action) is not derived from the state, and is not
// sent again.
void SheetFollower::callsClosed(const QString &why) {
    const bool fetching = std::exchange(m_fetching, false);
    if (!m_connected) return;
    if (!std::exchange(m_callsAnswered, false)) {
        say(QStringLiteral("%1: %2, before it answered a call").arg(socketPath(), why));
        return;
    }
    if (fetching) fetchContent(m_state.value(QLatin1String("list")).toObject().value(QLatin1String("revision")).toInt());
    setScreen();
}

void SheetFollower::inputCall(const QString &method, const QJsonObject &parameters, VarlinkConnection::Handler handler) {
    if (!m_input.isActive()) {
        const QString path = m_inputSocket.isEmpty()
            ? QFileInfo(socketPath()).dir().filePath(QStringLiteral("io.sheetd.Input")) : m_inputSocket;
        m_input.open(path);
    }
    m_input.call(method, parameters, std::move(handler));
}

void SheetFollower::declareTouch() {
    if (!m_connected) return;
    const QSize size(qRound(m_viewSize.width() * m_ratio), qRound(m_viewSize.height() * m_ratio));
    if (size.width() < 1 || size.height() < 1 || m_declaring || (m_touchDevice && size == m_declared)) return;
    m_declaring = true;
    const QString name = m_deviceName.isEmpty() ? QCoreApplication::applicationName() : m_deviceName;
    inputCall(QStringLiteral("io.sheetd.Input.OpenDevice"),
              {{QStringLiteral("name"), QStringLiteral("qt touch (%1)").arg(name.left(200))},
               {QStringLiteral("kind"), QStringLiteral("touchscreen")},
               {QStringLiteral("x"), QJsonObject{{QStringLiteral("min"), 0}, {QStringLiteral("max"), size.width()}}},
               {QStringLiteral("y"), QJsonObject{{QStringLiteral("min"), 0}, {QStringLiteral("max"), size.height()}}},
               {QStringLiteral("slots"), fingerSlots},
               {QStringLiteral("clock"), QStringLiteral("own")},
               {QStringLiteral("forwards"), QStringLiteral("compositor")}},
              [this, size](const VarlinkReply &reply) {
                  m_declaring = false;
                  if (!reply.error.isEmpty()) {
                      say(reply.describe(QStringLiteral("OpenDevice")));
                      return;
                  }
                  // The new device opens before the old one closes: the daemon is never
                  // without one forwarding, so it never reads the touchscreen in between.
                  const std::optional<int> old = m_touchDevice;
                  setTouchDevice(reply.parameters.value(QLatin1String("device")).toInt());
                  m_declared = size;
                  m_daemonHolds.fill(false);
                  if (old) inputCall(QStringLiteral("io.sheetd.Input.CloseDevice"), {{QStringLiteral("device"), *old}});
                  declareTouch();
              });
}

void SheetFollower::forwardTouches(const QList<Contact> &contacts, quint64 milliseconds) {
    if (!m_touchDevice) {
        declareTouch();
        return;
    }
    QJsonArray sent;
    for (const Contact &contact : contacts) {
        if (contact.slot < 0 || contact.slot >= fingerSlots) continue;
        bool &holds = m_daemonHolds[size_t(contact.slot)];
        // A finger the daemon did not see land (it was away, or the device was declared
        // anew) is not sent on; nor is a second landing of one it holds.
        if ((contact.phase == Phase::Down) == holds) continue;
        holds = contact.phase == Phase::Down || contact.phase == Phase::Move;
        static const char *const phases[] = {"down", "move", "up", "cancel"};
        sent.append(QJsonObject{{QStringLiteral("slot"), contact.slot},
                                {QStringLiteral("phase"), QLatin1String(phases[int(contact.phase)])},
                                {QStringLiteral("x"), qBound(0.0, contact.position.x() * m_ratio, qreal(m_declared.width()))},
                                {QStringLiteral("y"), qBound(0.0, contact.position.y() * m_ratio, qreal(m_declared.height()))}});
    }
    if (sent.isEmpty()) return;
    const qint64 sequence = ++m_sequence;
    inputCall(QStringLiteral("io.sheetd.Input.SendFrame"),
              {{QStringLiteral("device"), *m_touchDevice}, {QStringLiteral("sequence"), sequence},
               {QStringLiteral("time"), qint64(milliseconds) * 1000}, {QStringLiteral("contacts"), sent}},
              [this](const VarlinkReply &reply) {
                  if (!reply.error.isEmpty() && m_saidInput != reply.error) {
                      m_saidInput = reply.error;
                      say(reply.describe(QStringLiteral("SendFrame")));
                  }
              });
}

void SheetFollower::cancelTouches() {
    // The daemon cancels a device's fingers when the device closes: declared anew, none is held.
    if (!m_touchDevice || std::none_of(m_daemonHolds.begin(), m_daemonHolds.end(), [](bool held) { return held; })) return;
    const int old = *m_touchDevice;
    setTouchDevice(std::nullopt);
    m_daemonHolds.fill(false);
    inputCall(QStringLiteral("io.sheetd.Input.CloseDevice"), {{QStringLiteral("device"), old}});
    m_declared = QSize();
    declareTouch();
}

static qint64 monotonicMicroseconds() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return qint64(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
}

void SheetFollower::forwardKey(int code, bool pressed) {
    if (!m_connected || code < 0 || code > 767) return;
    const auto send = [this, code, pressed] {
        inputCall(QStringLiteral("io.sheetd.Input.SendKeys"),
                  {{QStringLiteral("device"), *m_keysDevice}, {QStringLiteral("sequence"), ++m_sequence},
                   {QStringLiteral("time"), monotonicMicroseconds()},
                   {QStringLiteral("keys"), QJsonArray{QJsonObject{{QStringLiteral("code"), code}, {QStringLiteral("value"), pressed ? 1 : 0}}}}},
                  [this](const VarlinkReply &reply) {
                      if (!reply.error.isEmpty()) say(reply.describe(QStringLiteral("SendKeys")));
                  });
    };
    if (m_keysDevice) {
        send();
        return;
    }
    // The keys' device opens at the first press; that press goes once it is open.
    if (!pressed || m_keysOpening) return;
    m_keysOpening = true;
    const QString name = m_deviceName.isEmpty() ? QCoreApplication::applicationName() : m_deviceName;
    inputCall(QStringLiteral("io.sheetd.Input.OpenKeys"),
              {{QStringLiteral("name"), QStringLiteral("qt keys (%1)").arg(name.left(200))}, {QStringLiteral("clock"), QStringLiteral("monotonic")}},
              [this, send](const VarlinkReply &reply) {
                  m_keysOpening = false;
                  if (!reply.error.isEmpty()) {
                      say(reply.describe(QStringLiteral("OpenKeys")));
                      return;
                  }
                  m_keysDevice = reply.parameters.value(QLatin1String("device")).toInt();
                  send();
              });
}

void SheetFollower::focus(const QString &element, const QString &command) {
    QJsonObject parameters;
    if (!element.isEmpty()) parameters.insert(QStringLiteral("element"), element);
    if (!command.isEmpty()) parameters.insert(QStringLiteral("command"), command);
    call(QStringLiteral("io.sheetd.Sheet.Focus"), parameters, [this](const VarlinkReply &reply) {
        if (!reply.error.isEmpty()) say(reply.describe(QStringLiteral("Focus")));
    });
}

void SheetFollower::setTouchDevice(std::optional<int> device) {
    const bool was = m_touchDevice.has_value();
    m_touchDevice = device;
    if (was != m_touchDevice.has_value()) emit forwardingChanged();
}

void SheetFollower::say(const QString &problem) {
    if (problem == m_problem) return;
    m_problem = problem;
    qWarning("sheetd: %s", qPrintable(problem));
    emit problemChanged();
}

} // namespace Sheetd
