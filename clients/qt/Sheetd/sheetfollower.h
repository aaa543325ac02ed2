// The daemon's sheet, followed as a renderer follows it: `Monitor` with `more` on a connection
// of its own (paced to the display's frames with `maxRate`), the content of the sheet shown kept
// in step with the states' `list.revision` (the swaps and toggles the events carry, else
// `GetContent`), the screen set to the view's size, and the view's touches and keys forwarded
// on `io.sheetd.Input` as a compositor's are (`forwards: compositor`: the app read them from the
// seat's touchscreen, so the daemon leaves that touchscreen alone). It follows the daemon across
// restarts: a connection that ends is opened again, less often the longer the daemon stays away.
#pragma once

#include "varlinkconnection.h"

#include <QJsonArray>
#include <QObject>
#include <QPointF>
#include <QQmlParserStatus>
#include <QSizeF>
#include <QTimer>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>
#include <array>
#include <optional>

namespace Sheetd {

/// The daemon's socket: `path` when given, else the seat's when one is named
/// (`/run/sheetd/SEAT/io.sheetd.Sheet`; seat0's is `/run/sheetd/io.sheetd.Sheet`), else
/// `$SHEETD_SOCKET`, else seat0's: as sheetctl and the Python client find it.
QString sheetSocketPath(const QString &path, const QString &seat);

/// The content of the sheet shown, in the list's order, kept at the states' revision
/// (SheetClient's ContentMirror, the same rules): each `reorder-moved` is one swap and one
/// revision, each `item-toggled` one flip and one; what it cannot account for asks for
/// `GetContent`.
class ContentMirror {
public:
    /// Takes a Monitor reply's state and events; whether GetContent is needed to draw it.
    bool follow(const QJsonObject &state, const QJsonArray &events);
    /// What GetContent answered, for `sheet` (null: the shared sheet).
    void fetched(const QJsonObject &content, int revision, const QJsonValue &sheet);
    void fetchFailed(int revision) { m_failed = revision; }
    void reset() { *this = ContentMirror(); }
    const std::optional<QJsonObject> &content() const { return m_content; }
    const QJsonValue &sheet() const { return m_sheet; }

private:
    std::optional<QJsonObject> m_content;
    std::optional<int> m_revision;
    QJsonValue m_sheet = QJsonValue::Null;
    std::optional<int> m_failed;
};

class SheetFollower : public QObject, public QQmlParserStatus {
    Q_OBJECT
    Q_INTERFACES(QQmlParserStatus)
    QML_ELEMENT
    /// The daemon's socket; empty: the seat's, else `$SHEETD_SOCKET`, else seat0's.
    Q_PROPERTY(QString socket READ socket WRITE setSocket NOTIFY socketChanged)
    /// The seat whose daemon to follow when `socket` is empty (seat0, seat1, …).
    Q_PROPERTY(QString seat READ seat WRITE setSeat NOTIFY socketChanged)
    /// The input socket; empty: `io.sheetd.Input` beside the daemon's socket.
    Q_PROPERTY(QString inputSocket READ inputSocket WRITE setInputSocket NOTIFY socketChanged)
    Q_PROPERTY(bool connected READ connected NOTIFY connectedChanged)
    /// The last state (docs/protocol.md's State), empty while no daemon answers.
    Q_PROPERTY(QVariantMap state READ state NOTIFY stateChanged)
    /// The content of the sheet the state shows (Content: title, items in the list's order,
    /// guarded, lang), empty while it has none or it is not known yet.
    Q_PROPERTY(QVariantMap content READ content NOTIFY contentChanged)
    /// States a second at most: the display's refresh rate (60 when not set).
    Q_PROPERTY(int maxRate READ maxRate WRITE setMaxRate NOTIFY maxRateChanged)
    /// The view's size in its own (device-independent) pixels, and the display's pixels per
    /// one of them: the daemon's screen is their product (`SetScreen`), its scale the ratio.
    Q_PROPERTY(QSizeF viewSize READ viewSize WRITE setViewSize NOTIFY viewSizeChanged)
    Q_PROPERTY(qreal devicePixelRatio READ devicePixelRatio WRITE setDevicePixelRatio NOTIFY viewSizeChanged)
    /// Whether this view tells the daemon the screen's size (true: the app owns the display,
    /// as on eglfs); false when a renderer of the daemon's sets it.
    Q_PROPERTY(bool setsScreen READ setsScreen WRITE setSetsScreen NOTIFY viewSizeChanged)
    /// The name the forwarded devices carry (`qt touch (NAME)`); the application's name when empty.
    Q_PROPERTY(QString deviceName READ deviceName WRITE setDeviceName NOTIFY deviceNameChanged)
    /// Whether the view's touches are forwarded now: its touch device is open on the daemon,
    /// which meanwhile leaves the seat's touchscreens to the app.
    Q_PROPERTY(bool forwarding READ forwarding NOTIFY forwardingChanged)
    /// What last went wrong, in words (a refused call names it), empty when nothing did.
    Q_PROPERTY(QString problem READ problem NOTIFY problemChanged)

public:
    /// Fingers forwarded at once: touch points, and the mouse as one more.
    static constexpr int fingerSlots = 10;
    enum class Phase { Down, Move, Up, Cancel };
    struct Contact {
        int slot;
        Phase phase;
        QPointF position; // in the view's pixels
    };

    explicit SheetFollower(QObject *parent = nullptr);
    ~SheetFollower() override;

    QString socket() const { return m_socket; }
    void setSocket(const QString &path);
    QString seat() const { return m_seat; }
    void setSeat(const QString &seat);
    QString inputSocket() const { return m_inputSocket; }
    void setInputSocket(const QString &path);
    bool connected() const { return m_connected; }
    QVariantMap state() const { return m_stateMap; }
    QVariantMap content() const { return m_contentMap; }
    int maxRate() const { return m_maxRate; }
    void setMaxRate(int rate);
    QSizeF viewSize() const { return m_viewSize; }
    void setViewSize(const QSizeF &size);
    qreal devicePixelRatio() const { return m_ratio; }
    void setDevicePixelRatio(qreal ratio);
    bool setsScreen() const { return m_setsScreen; }
    void setSetsScreen(bool sets);
    QString deviceName() const { return m_deviceName; }
    void setDeviceName(const QString &name);
    QString problem() const { return m_problem; }
    bool forwarding() const { return m_touchDevice.has_value(); }

    /// The socket followed now.
    QString socketPath() const;

    /// The view's touches that changed in one event, at the event's time (milliseconds, the
    /// input device's clock): to the daemon, whose recogniser decides what they do.
    void forwardTouches(const QList<Contact> &contacts, quint64 milliseconds);
    /// Every finger forwarded and still down, cancelled (the view lost them).
    void cancelTouches();

    /// A key (an evdev key code) pressed or released while the sheet holds the focus.
    Q_INVOKABLE void forwardKey(int code, bool pressed);
    /// For assistive technologies: the focus on `element` (an item's id, or close), then
    /// `command` as a key would do it (`activate` is a tap), on the sheet shown.
    Q_INVOKABLE void focus(const QString &element, const QString &command = QString());

    void classBegin() override {}
    void componentComplete() override;

signals:
    void socketChanged();
    void connectedChanged();
    void stateChanged();
    void contentChanged();
    void maxRateChanged();
    void viewSizeChanged();
    void deviceNameChanged();
    void problemChanged();
    void forwardingChanged();
    /// Each event the daemon reports to this program (docs/protocol.md's Event, with `sheet`).
    void sheetEvent(const QVariantMap &event);

private:
    void start();
    void stop(const QString &why);
    void retryLater();
    void followed(const VarlinkReply &reply);
    void fetchContent(int revision);
    void publishContent();
    void setScreen();
    void declareTouch();
    void call(const QString &method, const QJsonObject &parameters, VarlinkConnection::Handler handler = {});
    void callsClosed(const QString &why);
    void inputCall(const QString &method, const QJsonObject &parameters, VarlinkConnection::Handler handler = {});
    void say(const QString &problem);
    void setTouchDevice(std::optional<int> device);

    QString m_socket, m_seat, m_inputSocket, m_deviceName, m_problem;
    bool m_complete = false;
    bool m_connected = false;
    int m_maxRate = 60;
    QSizeF m_viewSize;
    qreal m_ratio = 1;
    bool m_setsScreen = true;

    VarlinkConnection m_monitor, m_calls, m_input;
    // The calls' connection answered a call since it was last closed (callsClosed).
    bool m_callsAnswered = false;
    QTimer m_retry;
    int m_attempts = 0;

    QJsonObject m_state;
    QVariantMap m_stateMap, m_contentMap;
    ContentMirror m_mirror;
    bool m_fetching = false;

    // The forwarded devices: the touch device (declared at each connection and resize, with
    // the size it was declared for), the keys' device (on the first key).
    std::optional<int> m_touchDevice, m_keysDevice;
    bool m_declaring = false, m_keysOpening = false;
    QSize m_declared;
    qint64 m_sequence = 0;
    std::array<bool, fingerSlots> m_daemonHolds{};
    QString m_saidInput;
};

} // namespace Sheetd
