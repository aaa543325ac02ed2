#include "varlinkconnection.h"

#include <QJsonDocument>

namespace Sheetd {

QString VarlinkReply::describe(const QString &call) const {
    return QStringLiteral("%1: %2 %3").arg(call, error, QString::fromUtf8(QJsonDocument(parameters).toJson(QJsonDocument::Compact)));
}

VarlinkConnection::VarlinkConnection(QObject *parent) : QObject(parent) {
    connect(&m_socket, &QLocalSocket::connected, this, [this] {
        m_open = true;
        if (!m_unsent.isEmpty()) {
            m_socket.write(m_unsent);
            m_unsent.clear();
        }
        emit opened();
    });
    connect(&m_socket, &QLocalSocket::readyRead, this, &VarlinkConnection::readReplies);
    connect(&m_socket, &QLocalSocket::errorOccurred, this, [this](QLocalSocket::LocalSocketError error) {
        fail(error == QLocalSocket::PeerClosedError ? QStringLiteral("the daemon closed the connection") : m_socket.errorString());
    });
    connect(&m_socket, &QLocalSocket::disconnected, this, [this] { fail(QStringLiteral("the daemon closed the connection")); });
}

VarlinkConnection::~VarlinkConnection() {
    // The socket goes last, and says nothing as it goes: what its signals would touch is gone.
    m_socket.disconnect(this);
    m_socket.abort();
}

void VarlinkConnection::open(const QString &path) {
    close();
    m_active = true;
    m_path = path;
    m_socket.connectToServer(path, QIODevice::ReadWrite);
}

void VarlinkConnection::close() {
    ++m_generation;
    m_active = false;
    m_open = false;
    m_waiting.clear();
    m_buffer.clear();
    m_unsent.clear();
    m_socket.blockSignals(true);
    m_socket.abort();
    m_socket.blockSignals(false);
}

void VarlinkConnection::call(const QString &method, const QJsonObject &parameters, Handler handler, bool more) {
    QJsonObject message{{QStringLiteral("method"), method}, {QStringLiteral("parameters"), parameters}};
    if (more) message.insert(QStringLiteral("more"), true);
    QByteArray bytes = QJsonDocument(message).toJson(QJsonDocument::Compact);
    bytes.append('\0');
    m_waiting.enqueue(std::move(handler));
    if (m_open) m_socket.write(bytes);
    else m_unsent.append(bytes);
}

void VarlinkConnection::readReplies() {
    m_buffer.append(m_socket.readAll());
    qsizetype start = 0;
    for (qsizetype end; (end = m_buffer.indexOf('\0', start)) >= 0; start = end + 1) {
        QJsonParseError problem;
        const QJsonDocument document = QJsonDocument::fromJson(m_buffer.mid(start, end - start), &problem);
        if (!document.isObject()) {
            fail(QStringLiteral("a reply that is not a JSON object (%1)").arg(problem.errorString()));
            return;
        }
        if (m_waiting.isEmpty()) {
            fail(QStringLiteral("a reply to no call"));
            return;
        }
        const QJsonObject object = document.object();
        VarlinkReply reply{object.value(QStringLiteral("parameters")).toObject(), object.value(QStringLiteral("error")).toString(),
                           object.value(QStringLiteral("continues")).toBool()};
        // The handler may call again, close this connection or open it anew: it runs on a
        // copy, and what was read is left once the connection is not the one it was read on.
        const Handler handler = reply.continues ? m_waiting.head() : m_waiting.dequeue();
        const quint64 generation = m_generation;
        if (handler) handler(reply);
        if (generation != m_generation) return;
    }
    m_buffer.remove(0, start);
    if (m_buffer.size() > maximumReply)
        fail(QStringLiteral("a reply longer than %1 bytes").arg(maximumReply));
}

void VarlinkConnection::fail(const QString &why) {
    if (!m_active) return;
    close();
    emit closed(why);
}

} // namespace Sheetd
