// The part of the view the sheet takes (the state's `region`: the whole screen while a modal
// sheet is shown, the card while another is, the bar or the edge band while it is closed):
// touches and mouse presses that land on it go to the daemon, with the events' own times; the
// rest reach the app's items beneath, which this item does not cover. A finger that landed
// here stays the sheet's until it lifts, wherever the region goes meanwhile (Qt keeps the
// point with the item that took its press).
#pragma once

#include "sheetfollower.h"

#include <QHash>
#include <QPointer>
#include <QQuickItem>
#include <QtQml/qqmlregistration.h>

namespace Sheetd {

class SheetTouchArea : public QQuickItem {
    Q_OBJECT
    QML_ELEMENT
    /// Whom the touches go to.
    Q_PROPERTY(Sheetd::SheetFollower *follower READ follower WRITE setFollower NOTIFY followerChanged)
    /// The item whose top-left corner is the screen's (the view): positions are taken in it.
    Q_PROPERTY(QQuickItem *screen READ screen WRITE setScreen NOTIFY screenChanged)
    /// Fingers of the sheet's that are down now.
    Q_PROPERTY(int fingers READ fingers NOTIFY fingersChanged)

public:
    explicit SheetTouchArea(QQuickItem *parent = nullptr);

    SheetFollower *follower() const { return m_follower; }
    void setFollower(SheetFollower *follower);
    QQuickItem *screen() const { return m_screen; }
    void setScreen(QQuickItem *screen);
    int fingers() const { return int(m_slots.size()); }

signals:
    void followerChanged();
    void screenChanged();
    void fingersChanged();
    /// A finger landed on the sheet (keys then go to it while it is shown, modal or not).
    void touched();

protected:
    void touchEvent(QTouchEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseUngrabEvent() override;
    void touchUngrabEvent() override;

private:
    /// The slot of a point (`key`: a touch point's id, or -1 for the mouse), taken at its press.
    int slotFor(int key, bool landing);
    void release(int key);
    void send(const QList<SheetFollower::Contact> &contacts, quint64 milliseconds);
    void cancelAll();
    QPointF onScreen(const QPointF &scenePosition) const;

    QPointer<SheetFollower> m_follower;
    QPointer<QQuickItem> m_screen;
    QHash<int, int> m_slots;
    quint64 m_lastTime = 0;
};

} // namespace Sheetd
