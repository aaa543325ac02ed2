#include "sheettoucharea.h"

#include <QMouseEvent>
#include <QTouchEvent>

namespace Sheetd {

static constexpr int mouseKey = -1;

SheetTouchArea::SheetTouchArea(QQuickItem *parent) : QQuickItem(parent) {
    setAcceptTouchEvents(true);
    setAcceptedMouseButtons(Qt::LeftButton);
}

void SheetTouchArea::setFollower(SheetFollower *follower) {
    if (follower == m_follower) return;
    cancelAll();
    m_follower = follower;
    emit followerChanged();
}

void SheetTouchArea::setScreen(QQuickItem *screen) {
    if (screen == m_screen) return;
    m_screen = screen;
    emit screenChanged();
}

QPointF SheetTouchArea::onScreen(const QPointF &scenePosition) const {
    return m_screen ? m_screen->mapFromScene(scenePosition) : scenePosition;
}

int SheetTouchArea::slotFor(int key, bool landing) {
    if (const auto found = m_slots.constFind(key); found != m_slots.constEnd()) return landing ? -1 : *found;
    if (!landing) return -1;
    for (int slot = 0; slot < SheetFollower::fingerSlots; ++slot) {
        if (std::find(m_slots.cbegin(), m_slots.cend(), slot) == m_slots.cend()) {
            m_slots.insert(key, slot);
            emit fingersChanged();
            if (m_slots.size() == 1) emit touched();
            return slot;
        }
    }
    return -1; // more fingers than slots: the extra ones are not the sheet's
}

void SheetTouchArea::release(int key) {
    if (m_slots.remove(key)) emit fingersChanged();
}

void SheetTouchArea::send(const QList<SheetFollower::Contact> &contacts, quint64 milliseconds) {
    // The daemon takes no frame before the last one: a mouse and a finger at once may come
    // with times out of step by a millisecond.
    m_lastTime = qMax(m_lastTime, milliseconds);
    if (m_follower && !contacts.isEmpty()) m_follower->forwardTouches(contacts, m_lastTime);
}

void SheetTouchArea::touchEvent(QTouchEvent *event) {
    QList<SheetFollower::Contact> contacts;
    for (const QEventPoint &point : event->points()) {
        using Phase = SheetFollower::Phase;
        switch (point.state()) {
        case QEventPoint::Pressed: {
            const int slot = slotFor(point.id(), true);
            if (slot < 0) continue;
            contacts.append({slot, Phase::Down, onScreen(point.scenePosition())});
            break;
        }
        case QEventPoint::Updated: {
            const int slot = slotFor(point.id(), false);
            if (slot >= 0) contacts.append({slot, Phase::Move, onScreen(point.scenePosition())});
            break;
        }
        case QEventPoint::Released: {
            const int slot = slotFor(point.id(), false);
            if (slot < 0) continue;
            contacts.append({slot, event->type() == QEvent::TouchCancel ? Phase::Cancel : Phase::Up, onScreen(point.scenePosition())});
            release(point.id());
            break;
        }
        default: // stationary: nothing changed
            break;
        }
    }
    if (event->type() == QEvent::TouchCancel) {
        cancelAll();
        return;
    }
    event->accept();
    send(contacts, event->timestamp());
}

void SheetTouchArea::mousePressEvent(QMouseEvent *event) {
    // A press Qt made from a touch is that touch's, already sent.
    if (event->source() != Qt::MouseEventNotSynthesized) {
        event->ignore();
        return;
    }
    const int slot = slotFor(mouseKey, true);
    if (slot < 0) return;
    event->accept();
    send({{slot, SheetFollower::Phase::Down, onScreen(event->scenePosition())}}, event->timestamp());
}

void SheetTouchArea::mouseMoveEvent(QMouseEvent *event) {
    const int slot = slotFor(mouseKey, false);
    if (slot >= 0) send({{slot, SheetFollower::Phase::Move, onScreen(event->scenePosition())}}, event->timestamp());
}

void SheetTouchArea::mouseReleaseEvent(QMouseEvent *event) {
    const int slot = slotFor(mouseKey, false);
    if (slot < 0) return;
    release(mouseKey);
    send({{slot, SheetFollower::Phase::Up, onScreen(event->scenePosition())}}, event->timestamp());
}

void SheetTouchArea::mouseUngrabEvent() {
    // Taken away without a release (a popup, the window hidden): the finger is cancelled.
    if (m_slots.contains(mouseKey)) cancelAll();
}

void SheetTouchArea::touchUngrabEvent() { cancelAll(); }

void SheetTouchArea::cancelAll() {
    if (m_slots.isEmpty()) return;
    m_slots.clear();
    emit fingersChanged();
    if (m_follower) m_follower->cancelTouches();
}

} // namespace Sheetd
