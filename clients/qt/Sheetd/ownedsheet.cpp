#include "ownedsheet.h"
#include "sheetfollower.h"

#include <QJsonDocument>

namespace Sheetd {

OwnedSheet::OwnedSheet(QObject *parent) : QObject(parent) {
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &OwnedSheet::openNow);
    // Content properties set one after another in a handler go in one SetContent.
    m_send.setSingleShot(true);
    m_send.setInterval(0);
    connect(&m_send, &QTimer::timeout, this, &OwnedSheet::sendContent);
    connect(&m_monitor, &VarlinkConnection::closed, this, &OwnedSheet::gone);
}

QString OwnedSheet::socketPath() const { return sheetSocketPath(m_socket, m_seat); }

void OwnedSheet::setSocket(const QString &path) {
    if (path == m_socket) return;
    m_socket = path;
    emit socketChanged();
}

void OwnedSheet::setSeat(const QString &seat) {
    if (seat == m_seat) return;
    m_seat = seat;
    emit socketChanged();
}

void OwnedSheet::setTitle(const QString &title) {
    if (title == m_title) return;
    m_title = title;
    emit titleChanged();
    contentChanged("title");
}

void OwnedSheet::setItems(const QVariantList &items) {
    m_items = items;
    m_current = QJsonArray::fromVariantList(items);
    emit itemsChanged();
    contentChanged("items");
}

void OwnedSheet::setGuarded(bool guarded) {
    if (guarded == m_guarded) return;
    m_guarded = guarded;
    emit guardedChanged();
    contentChanged("guarded");
}

void OwnedSheet::setLang(const QString &lang) {
    if (lang == m_lang) return;
    m_lang = lang;
    emit langChanged();
    contentChanged("lang");
}

void OwnedSheet::setLayer(const QString &layer) {
    if (layer == m_layer) return;
    m_layer = layer;
    emit layerChanged();
}

void OwnedSheet::setDetent(const QString &detent) {
    if (detent == m_detent) return;
    m_detent = detent;
    emit detentChanged();
}

void OwnedSheet::open() {
    if (m_wanted) return;
    m_wanted = true;
    m_attempts = 0;
    openNow();
}

void OwnedSheet::openNow() {
    if (!m_wanted || m_monitor.isActive()) return;
    // Its events follow on a connection of their own: opened first, so that none is missed
    // (those between OpenSheet and Monitor are held for the program anyway).
    m_monitor.open(socketPath());
    m_calls.open(socketPath());
    QJsonObject parameters{{QStringLiteral("title"), m_title}, {QStringLiteral("items"), m_current},
                           {QStringLiteral("guarded"), m_guarded}, {QStringLiteral("lang"), m_lang},
                           {QStringLiteral("layer"), m_layer}};
    // On a new daemon the sheet comes back where it last rested.
    const QString detent = m_restingDetent.isEmpty() ? m_detent : m_restingDetent;
    if (!detent.isEmpty()) parameters.insert(QStringLiteral("detent"), detent);
    m_calls.call(QStringLiteral("io.sheetd.Sheet.OpenSheet"), parameters, [this](const VarlinkReply &reply) {
        if (!reply.error.isEmpty()) {
            say(reply.describe(QStringLiteral("OpenSheet")));
            // Refused content is not refused less the next time: the app must change it.
            if (reply.error == QLatin1String("org.varlink.service.InvalidParameter")) m_wanted = false;
            m_monitor.close();
            m_calls.close();
            if (m_wanted) m_retry.start(250 * qMin(++m_attempts, 10));
            return;
        }
        m_attempts = 0;
        m_sheet = reply.parameters.value(QLatin1String("sheet")).toString();
        m_problem.clear();
        emit problemChanged();
        emit sheetChanged();
        emit opened();
    });
    m_monitor.call(QStringLiteral("io.sheetd.Sheet.Monitor"), {{QStringLiteral("maxRate"), 30}},
                   [this](const VarlinkReply &reply) { followed(reply); }, true);
}

void OwnedSheet::followed(const VarlinkReply &reply) {
    if (!reply.error.isEmpty()) {
        say(QStringLiteral("Monitor: %1").arg(reply.error));
        return;
    }
    const QJsonObject state = reply.parameters.value(QLatin1String("state")).toObject();
    const bool shown = !m_sheet.isEmpty() && state.value(QLatin1String("sheet")).toString() == m_sheet
        && !(state.value(QLatin1String("state")).toString() == QLatin1String("resting")
             && state.value(QLatin1String("detent")).toString() == QLatin1String("hidden"));
    const QString detent = state.value(QLatin1String("detent")).toString();
    const bool rests = shown && state.value(QLatin1String("state")).toString() == QLatin1String("resting") && !detent.isEmpty();
    if (shown != m_shown || (rests && detent != m_restingDetent)) {
        m_shown = shown;
        if (rests) m_restingDetent = detent;
        emit shownChanged();
    }
    for (const QJsonValue &value : reply.parameters.value(QLatin1String("events")).toArray()) {
        const QJsonObject event = value.toObject();
        if (m_sheet.isEmpty() || event.value(QLatin1String("sheet")).toString() != m_sheet) continue;
        const QString kind = event.value(QLatin1String("event")).toString();
        const QString item = event.value(QLatin1String("item")).toString();
        emit sheetEvent(event.toVariantMap());
        if (kind == QLatin1String("item-tapped")) {
            emit itemTapped(item);
        } else if (kind == QLatin1String("item-toggled")) {
            const bool on = event.value(QLatin1String("on")).toBool();
            for (qsizetype index = 0; index < m_current.size(); ++index) {
                QJsonObject row = m_current[index].toObject();
                if (row.value(QLatin1String("id")).toString() != item) continue;
                row.insert(QStringLiteral("on"), on);
                m_current[index] = row;
            }
            emit itemToggled(item, on);
        } else if (kind == QLatin1String("reorder-ended")) {
            QStringList order;
            QJsonArray reordered;
            for (const QJsonValue &id : event.value(QLatin1String("order")).toArray()) {
                order.append(id.toString());
                for (const QJsonValue &row : std::as_const(m_current))
                    if (row.toObject().value(QLatin1String("id")).toString() == id.toString()) reordered.append(row);
            }
            if (reordered.size() == m_current.size()) m_current = reordered;
            emit reorderEnded(item, order);
        } else if (kind == QLatin1String("dismiss-attempted")) {
            emit dismissAttempted(event.value(QLatin1String("cause")).toString());
        } else if (kind == QLatin1String("presented")) {
            emit presented(event.value(QLatin1String("cause")).toString());
        }
    }
}

void OwnedSheet::gone(const QString &why) {
    // The daemon went (or dropped the follower): the sheet went with it. Opened again on the
    // next one, with what the person left it showing.
    m_calls.close();
    const bool had = !m_sheet.isEmpty();
    m_sheet.clear();
    if (m_shown) {
        m_shown = false;
        emit shownChanged();
    }
    if (had) emit sheetChanged();
    if (!m_wanted) return;
    say(QStringLiteral("%1: %2; opening the sheet again").arg(socketPath(), why));
    m_retry.start(250 * qMin(++m_attempts, 10));
}

void OwnedSheet::close() {
    m_wanted = false;
    m_retry.stop();
    if (!m_sheet.isEmpty()) {
        const QString sheet = m_sheet;
        m_calls.call(QStringLiteral("io.sheetd.Sheet.CloseSheet"), {{QStringLiteral("sheet"), sheet}}, [this](const VarlinkReply &) {
            m_calls.close();
        });
    }
    m_monitor.close();
    const bool had = !m_sheet.isEmpty();
    m_sheet.clear();
    m_shown = false;
    if (had) emit sheetChanged();
}

void OwnedSheet::contentChanged(const char *field) {
    if (m_sheet.isEmpty()) return;
    const QString name = QLatin1String(field);
    if (!m_changed.contains(name)) m_changed.append(name);
    m_send.start();
}

void OwnedSheet::sendContent() {
    if (m_sheet.isEmpty() || m_changed.isEmpty()) return;
    QJsonObject parameters;
    for (const QString &field : std::as_const(m_changed)) {
        if (field == QLatin1String("title")) parameters.insert(field, m_title);
        else if (field == QLatin1String("items")) parameters.insert(field, m_current);
        else if (field == QLatin1String("guarded")) parameters.insert(field, m_guarded);
        else if (field == QLatin1String("lang")) parameters.insert(field, m_lang);
    }
    m_changed.clear();
    call(QStringLiteral("io.sheetd.Sheet.SetContent"), parameters, QStringLiteral("SetContent"));
}

void OwnedSheet::present(const QString &detent) {
    QJsonObject parameters;
    if (!detent.isEmpty()) parameters.insert(QStringLiteral("detent"), detent);
    call(QStringLiteral("io.sheetd.Sheet.Present"), parameters, QStringLiteral("Present"));
}

void OwnedSheet::dismiss(bool force) {
    call(QStringLiteral("io.sheetd.Sheet.Dismiss"), {{QStringLiteral("force"), force}}, QStringLiteral("Dismiss"));
}

void OwnedSheet::moveTo(const QString &detent) {
    call(QStringLiteral("io.sheetd.Sheet.SetDetent"), {{QStringLiteral("detent"), detent}}, QStringLiteral("SetDetent"));
}

void OwnedSheet::focus(const QString &element, const QString &command) {
    QJsonObject parameters;
    if (!element.isEmpty()) parameters.insert(QStringLiteral("element"), element);
    if (!command.isEmpty()) parameters.insert(QStringLiteral("command"), command);
    call(QStringLiteral("io.sheetd.Sheet.Focus"), parameters, QStringLiteral("Focus"));
}

void OwnedSheet::call(const QString &method, QJsonObject parameters, const QString &what) {
    if (m_sheet.isEmpty()) {
        say(QStringLiteral("%1: the sheet is not open").arg(what));
        return;
    }
    parameters.insert(QStringLiteral("sheet"), m_sheet);
    // The daemon closes a connection that made no call for 10 s; the sheet stays, held by
    // the follower's, and the call goes on a new one.
    if (!m_calls.isActive()) m_calls.open(socketPath());
    m_calls.call(method, parameters, [this, what](const VarlinkReply &reply) {
        if (!reply.error.isEmpty()) say(reply.describe(what));
    });
}

void OwnedSheet::say(const QString &problem) {
    if (problem == m_problem) return;
    m_problem = problem;
    qWarning("sheetd: %s", qPrintable(problem));
    emit problemChanged();
}

} // namespace Sheetd
