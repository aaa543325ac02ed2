"""A client for sheetd's varlink interface io.sheetd.Sheet, with the standard library only.

    from sheetd import Client, follow

    with Client() as sheet:                 # $SHEETD_SOCKET, else /run/sheetd/io.sheetd.Sheet
        print(sheet.get_state().detent)
        sheet.set_content(title="Settings", items=[Item("wifi", "Wi-Fi")])
    for update in follow():                 # reconnects when the daemon restarts
        for event in update.events:
            print(event.event, event.item)

Every reply is checked against the interface (docs/protocol.md) and turned into the frozen
dataclasses below; a reply that does not fit raises ProtocolError naming the field, and an
error the daemon returns raises SheetdError with its name and parameters.
"""
from .client import (
    DEFAULT_SOCKET, MAX_MESSAGE_BYTES, Client, ConnectionLost, OwnedSheet, ProtocolError, SheetdError, follow, seat_socket, socket_path,
)
from .types import (
    Appearance, Card, Content, DetentPosition, Device, Event, Gesture, Item, LiftedItem, ListState, MovingItem,
    Presentation, Region, Screen, State, Stats, Update,
)

__all__ = [
    "Client", "OwnedSheet", "follow", "seat_socket", "socket_path", "DEFAULT_SOCKET", "MAX_MESSAGE_BYTES",
    "SheetdError", "ProtocolError", "ConnectionLost",
    "Appearance", "Card", "Content", "DetentPosition", "Device", "Event", "Gesture", "Item", "LiftedItem", "ListState", "MovingItem",
    "Presentation", "Region", "Screen", "State", "Stats", "Update",
]
