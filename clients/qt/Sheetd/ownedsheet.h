// A sheet of the app's own (`OpenSheet`), declared in QML with its content:
//
//     Sheet {
//         id: settings
//         title: qsTr("Settings")
//         items: [{ id: "wifi", label: qsTr("Wi-Fi"), accessory: "toggle", on: true }]
//         onItemToggled: (item, on) => console.log(item, on)
//     }
//     ... settings.open()
//
// Its events come to this program alone (the daemon knows a program by its process), on a
// `Monitor` of its own; a content property changed while it is open is sent (`SetContent`).
// When the daemon goes (restarted, upgraded), the sheet is opened again on the next one with
// its last content and the detent it last rested at, and `sheet` names the new one.
#pragma once

#include "varlinkconnection.h"

#include <QJsonArray>
#include <QObject>
#include <QTimer>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>

namespace Sheetd {

class OwnedSheet : public QObject {
    Q_OBJECT
    QML_NAMED_ELEMENT(Sheet)
    Q_PROPERTY(QString socket READ socket WRITE setSocket NOTIFY socketChanged)
    Q_PROPERTY(QString seat READ seat WRITE setSeat NOTIFY socketChanged)
    Q_PROPERTY(QString title READ title WRITE setTitle NOTIFY titleChanged)
    /// The rows (docs/protocol.md's Item: id, label, subtitle, icon, accessory, on, value,
    /// disabled, section), as a list of objects.
    Q_PROPERTY(QVariantList items READ items WRITE setItems NOTIFY itemsChanged)
    Q_PROPERTY(bool guarded READ guarded WRITE setGuarded NOTIFY guardedChanged)
    /// The BCP 47 tag of the content's language (`ar` is drawn right to left, `ko` spoken in Korean).
    Q_PROPERTY(QString lang READ lang WRITE setLang NOTIFY langChanged)
    /// `app` (the default) or `system`, whose sheets are shown above the apps'.
    Q_PROPERTY(QString layer READ layer WRITE setLayer NOTIFY layerChanged)
    /// Where it opens; empty: the daemon's initial detent.
    Q_PROPERTY(QString detent READ detent WRITE setDetent NOTIFY detentChanged)
    /// The daemon's name for it while it is open (`sheet-3`), empty otherwise.
    Q_PROPERTY(QString sheet READ sheet NOTIFY sheetChanged)
    Q_PROPERTY(bool isOpen READ isOpen NOTIFY sheetChanged)
    /// Whether it is the sheet shown now.
    Q_PROPERTY(bool shown READ shown NOTIFY shownChanged)
    /// The detent it last rested at while shown.
    Q_PROPERTY(QString restingDetent READ restingDetent NOTIFY shownChanged)
    Q_PROPERTY(QString problem READ problem NOTIFY problemChanged)

public:
    explicit OwnedSheet(QObject *parent = nullptr);

    QString socket() const { return m_socket; }
    void setSocket(const QString &path);
    QString seat() const { return m_seat; }
    void setSeat(const QString &seat);
    QString title() const { return m_title; }
    void setTitle(const QString &title);
    QVariantList items() const { return m_items; }
    void setItems(const QVariantList &items);
    bool guarded() const { return m_guarded; }
    void setGuarded(bool guarded);
    QString lang() const { return m_lang; }
    void setLang(const QString &lang);
    QString layer() const { return m_layer; }
    void setLayer(const QString &layer);
    QString detent() const { return m_detent; }
    void setDetent(const QString &detent);
    QString sheet() const { return m_sheet; }
    bool isOpen() const { return !m_sheet.isEmpty(); }
    bool shown() const { return m_shown; }
    QString restingDetent() const { return m_restingDetent; }
    QString problem() const { return m_problem; }

    /// Opens the sheet (and presents it): `opened` follows, or `problem` says why not.
    Q_INVOKABLE void open();
    /// Closes it for good (`CloseSheet`).
    Q_INVOKABLE void close();
    Q_INVOKABLE void present(const QString &detent = QString());
    /// Dismisses it; a guarded sheet only with `force` (after asking the person).
    Q_INVOKABLE void dismiss(bool force = false);
    Q_INVOKABLE void moveTo(const QString &detent);
    /// The focus on `element` (an item's id, or close), then `command` as a key would do it.
    Q_INVOKABLE void focus(const QString &element, const QString &command = QString());

signals:
    void socketChanged();
    void titleChanged();
    void itemsChanged();
    void guardedChanged();
    void langChanged();
    void layerChanged();
    void detentChanged();
    void sheetChanged();
    void shownChanged();
    void problemChanged();
    void opened();
    void sheetEvent(const QVariantMap &event);
    void itemTapped(const QString &item);
    void itemToggled(const QString &item, bool on);
    void reorderEnded(const QString &item, const QStringList &order);
    void dismissAttempted(const QString &cause);
    void presented(const QString &cause);

private:
    QString socketPath() const;
    void openNow();
    void followed(const VarlinkReply &reply);
    void gone(const QString &why);
    void contentChanged(const char *field);
    void sendContent();
    void call(const QString &method, QJsonObject parameters, const QString &what);
    void say(const QString &problem);

    QString m_socket, m_seat, m_title, m_lang, m_layer = QStringLiteral("app"), m_detent, m_sheet, m_restingDetent, m_problem;
    QVariantList m_items;
    bool m_guarded = false;
    bool m_wanted = false;
    bool m_shown = false;
    // What the daemon has now: the items as the person left them (toggles flipped, rows
    // reordered), sent again when the sheet is opened on a new daemon.
    QJsonArray m_current;
    QStringList m_changed;

    VarlinkConnection m_calls, m_monitor;
    QTimer m_retry, m_send;
    int m_attempts = 0;
};

} // namespace Sheetd
