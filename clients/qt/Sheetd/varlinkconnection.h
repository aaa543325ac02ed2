// One varlink connection to sheetd over a Unix socket (QLocalSocket): each message is a JSON
// object and a NUL byte, replies come in the order of the calls, a call with `more` gets
// replies until one without `continues` (docs/protocol.md). Nothing blocks: replies and the
// end of the connection come as callbacks and signals on the thread that owns it.
#pragma once

#include <QJsonObject>
#include <QLocalSocket>
#include <QObject>
#include <QQueue>
#include <functional>

namespace Sheetd {

/// A reply: its parameters, or the daemon's error (its name and parameters); `continues` while
/// a `more` call has replies to come.
struct VarlinkReply {
    QJsonObject parameters;
    QString error;
    bool continues = false;
    /// A refusal in words, for a log: `SetScreen: org.varlink.service.InvalidParameter {"parameter":"width"}`.
    QString describe(const QString &call) const;
};

class VarlinkConnection : public QObject {
    Q_OBJECT
public:
    using Handler = std::function<void(const VarlinkReply &)>;

    /// The largest reply taken: a full list's GetContent can reach about 2 MiB
    /// (docs/protocol.md, "Content"); a reply past this ends the connection, said why.
    static constexpr qsizetype maximumReply = 8 * 1024 * 1024;

    explicit VarlinkConnection(QObject *parent = nullptr);
    ~VarlinkConnection() override;

    /// Connects to `path`; `opened` or `closed` follows.
    void open(const QString &path);
    /// The socket the last `open` named.
    const QString &path() const { return m_path; }
    /// Ends the connection; the calls waiting get no reply.
    void close();
    /// Open, and calls go straight out.
    bool isOpen() const { return m_open; }
    /// Opening or open: calls made now are sent (`closed` says when they will not be).
    bool isActive() const { return m_active; }
    /// Calls `method` (`io.sheetd.Sheet.GetState`); `handler` hears each reply. A call made
    /// while the connection opens is sent once it is open.
    void call(const QString &method, const QJsonObject &parameters = {}, Handler handler = {}, bool more = false);

signals:
    void opened();
    /// The connection ended: the daemon went (`why` says how), or a reply could not be read.
    /// Emitted while the socket still tells of its close: a slot that opens the connection again
    /// is connected queued (or opens it later, from a timer), or the new one ends with the old.
    void closed(const QString &why);

private:
    void readReplies();
    void fail(const QString &why);

    QLocalSocket m_socket;
    QString m_path;
    QByteArray m_buffer;
    QQueue<Handler> m_waiting;
    QByteArray m_unsent;
    bool m_open = false;
    bool m_active = false;
    quint64 m_generation = 0;
};

} // namespace Sheetd
