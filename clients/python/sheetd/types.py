"""The types of io.sheetd.Sheet (docs/protocol.md) as frozen dataclasses, each read from a reply
by `from_json`, which checks every field and raises ProtocolError naming the one that does not
fit (`state.screen.width`, `events[2].order[0]`)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple, TypeVar


class ProtocolError(Exception):
    """A message from the daemon that is not what the interface says."""


T = TypeVar("T")


def _field(value: dict, name: str, where: str, check: Callable[[Any, str], T], optional: bool = False) -> T:
    path = f"{where}.{name}" if where else name
    if name not in value or value[name] is None:
        if optional:
            return None  # type: ignore[return-value]
        raise ProtocolError(f"{path} is missing")
    return check(value[name], path)


def _string(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise ProtocolError(f"{path} is not a string: {value!r}")
    return value


def _int(value: Any, path: str) -> int:
    # JSON has one number type: an integral float is an int (the daemon writes 3, not 3.0).
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (isinstance(value, float) and not value.is_integer()):
        raise ProtocolError(f"{path} is not an integer: {value!r}")
    if abs(value) > 2**63 - 1:
        raise ProtocolError(f"{path} is outside 64 bits: {value!r}")
    return int(value)


def _float(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ProtocolError(f"{path} is not a finite number: {value!r}")
    return float(value)


def _bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise ProtocolError(f"{path} is not a boolean: {value!r}")
    return value


def _object(value: Any, path: str) -> dict:
    if not isinstance(value, dict):
        raise ProtocolError(f"{path} is not an object: {value!r}")
    return value


def _list(of: Callable[[Any, str], T]) -> Callable[[Any, str], Tuple[T, ...]]:
    def check(value: Any, path: str) -> Tuple[T, ...]:
        if not isinstance(value, list):
            raise ProtocolError(f"{path} is not a list: {value!r}")
        return tuple(of(element, f"{path}[{index}]") for index, element in enumerate(value))
    return check


def _one_of(*choices: str) -> Callable[[Any, str], str]:
    def check(value: Any, path: str) -> str:
        if value not in choices:
            raise ProtocolError(f"{path} is {value!r}, not one of {', '.join(choices)}")
        return value
    return check


def _reader(cls):
    return lambda value, path: cls.from_json(_object(value, path), path)


@dataclass(frozen=True)
class Screen:
    width: int
    height: int
    scale: float

    @classmethod
    def from_json(cls, value: dict, where: str = "screen") -> "Screen":
        width, height = _field(value, "width", where, _int), _field(value, "height", where, _int)
        scale = _field(value, "scale", where, _float)
        # What the daemon accepts for SetScreen; anything else is not a daemon's state.
        if not (64 <= width <= 16384 and 64 <= height <= 16384 and 0.25 <= scale <= 16):
            raise ProtocolError(f"{where} is {width}x{height} at scale {scale}: outside 64-16384 px and 0.25-16")
        return cls(width, height, scale)


@dataclass(frozen=True)
class DetentPosition:
    name: str
    top: float

    @classmethod
    def from_json(cls, value: dict, where: str) -> "DetentPosition":
        return cls(_field(value, "name", where, _string), _field(value, "top", where, _float))


_COLOUR = __import__("re").compile(r"#[0-9a-fA-F]{6}\Z|#[0-9a-fA-F]{3}\Z")


def _colour(value: Any, path: str) -> str:
    text = _string(value, path)
    if not _COLOUR.match(text):
        raise ProtocolError(f"{path} is {text!r}, not a colour like #3584e4")
    return text


@dataclass(frozen=True)
class Card:
    """The card's horizontal extent in pixels: the screen's width, or max-width placed by align."""
    x: float
    width: float

    @classmethod
    def from_json(cls, value: dict, where: str = "card") -> "Card":
        return cls(_field(value, "x", where, _float), _field(value, "width", where, _float))


@dataclass(frozen=True)
class Appearance:
    """How renderers draw the sheet: theme (light, dark, auto, high-contrast,
    high-contrast-dark), colours as #rrggbb (card and dim None for the theme's), a fontconfig
    pattern, the text scale (None: auto, each renderer's) and the corners in points."""
    theme: str = "light"
    accent: str = "#3584e4"
    font: str = ""
    text_scale: Optional[float] = 1.0
    card: Optional[str] = None
    dim: Optional[str] = None
    corner_radius: float = 28.0

    @classmethod
    def from_json(cls, value: dict, where: str = "appearance") -> "Appearance":
        text_scale = _field(value, "textScale", where, _float, optional=True)
        corner_radius = _field(value, "cornerRadius", where, _float)
        if not ((text_scale is None or 0.5 <= text_scale <= 3) and 0 <= corner_radius <= 64):
            raise ProtocolError(f"{where}: text scale {text_scale} or corner radius {corner_radius} outside 0.5-3 and 0-64")
        themes = _one_of("light", "dark", "auto", "high-contrast", "high-contrast-dark")
        return cls(_field(value, "theme", where, themes), _field(value, "accent", where, _colour),
                   _field(value, "font", where, _string), text_scale,
                   _field(value, "card", where, _colour, optional=True), _field(value, "dim", where, _colour, optional=True),
                   corner_radius)


@dataclass(frozen=True)
class Presentation:
    """How the sheet opens, closes and shares the screen: gestures (edge-swipe, bottom-bar),
    the edge band and the bar's height in points, modal, can_open and can_close."""
    gestures: Tuple[str, ...] = ("edge-swipe",)
    edge_band: float = 24.0
    bar_height: float = 64.0
    modal: bool = True
    can_open: bool = True
    can_close: bool = True
    touch_exploration: bool = False
    speech: str = "off"
    speaking: bool = False
    speech_rate: int = 0
    speech_volume: int = 100

    @classmethod
    def from_json(cls, value: dict, where: str = "presentation") -> "Presentation":
        # A daemon before speech sent none of its fields: the defaults.
        speech = _field(value, "speech", where, _one_of("off", "on", "headset"), optional=True)
        speaking = _field(value, "speaking", where, _bool, optional=True)
        rate = _field(value, "speechRate", where, _int, optional=True)
        volume = _field(value, "speechVolume", where, _int, optional=True)
        return cls(_field(value, "gestures", where, _list(_one_of("edge-swipe", "bottom-bar"))),
                   _field(value, "edgeBand", where, _float), _field(value, "barHeight", where, _float),
                   _field(value, "modal", where, _bool), _field(value, "canOpen", where, _bool),
                   _field(value, "canClose", where, _bool), _field(value, "touchExploration", where, _bool),
                   speech if speech is not None else "off", bool(speaking), rate if rate is not None else 0,
                   volume if volume is not None else 100)


@dataclass(frozen=True)
class Region:
    """The part of the screen the sheet takes, in pixels; empty when width or height is 0."""
    x: float
    y: float
    width: float
    height: float

    @classmethod
    def from_json(cls, value: dict, where: str = "region") -> "Region":
        return cls(_field(value, "x", where, _float), _field(value, "y", where, _float),
                   _field(value, "width", where, _float), _field(value, "height", where, _float))


@dataclass(frozen=True)
class Item:
    """A row: id and label, and optionally a second line, a freedesktop icon name, an accessory
    (toggle or check with on, chevron, value with value), disabled, and its section."""
    id: str
    label: str
    subtitle: str = ""
    icon: str = ""
    accessory: Optional[str] = None
    on: bool = False
    value: str = ""
    disabled: bool = False
    section: str = ""

    @classmethod
    def from_json(cls, value: dict, where: str) -> "Item":
        accessory = _field(value, "accessory", where, _one_of("toggle", "check", "chevron", "value"), optional=True)
        return cls(_field(value, "id", where, _string), _field(value, "label", where, _string),
                   _field(value, "subtitle", where, _string, optional=True) or "",
                   _field(value, "icon", where, _string, optional=True) or "", accessory,
                   bool(_field(value, "on", where, _bool, optional=True)),
                   _field(value, "value", where, _string, optional=True) or "",
                   bool(_field(value, "disabled", where, _bool, optional=True)),
                   _field(value, "section", where, _string, optional=True) or "")

    def to_json(self) -> dict:
        fields = {"id": self.id, "label": self.label}
        for name in ("subtitle", "icon", "section"):
            if getattr(self, name):
                fields[name] = getattr(self, name)
        if self.accessory:
            fields["accessory"] = self.accessory
            if self.accessory in ("toggle", "check"):
                fields["on"] = self.on
            if self.accessory == "value":
                fields["value"] = self.value
        if self.disabled:
            fields["disabled"] = True
        return fields


@dataclass(frozen=True)
class Content:
    title: str
    items: Tuple[Item, ...]
    guarded: bool
    lang: str = ""

    @classmethod
    def from_json(cls, value: dict, where: str = "content") -> "Content":
        return cls(_field(value, "title", where, _string), _field(value, "items", where, _list(_reader(Item))),
                   _field(value, "guarded", where, _bool), _field(value, "lang", where, _string))


@dataclass(frozen=True)
class LiftedItem:
    item: str
    index: int
    offset: float
    scale: float
    opacity: float

    @classmethod
    def from_json(cls, value: dict, where: str) -> "LiftedItem":
        return cls(_field(value, "item", where, _string), _field(value, "index", where, _int),
                   _field(value, "offset", where, _float), _field(value, "scale", where, _float),
                   _field(value, "opacity", where, _float))


@dataclass(frozen=True)
class MovingItem:
    item: str
    index: int
    offset: float

    @classmethod
    def from_json(cls, value: dict, where: str) -> "MovingItem":
        return cls(_field(value, "item", where, _string), _field(value, "index", where, _int),
                   _field(value, "offset", where, _float))


@dataclass(frozen=True)
class ListState:
    """The sheet's list while it has content (the interface's `List`)."""
    title_bar: float
    item_height: float
    scroll: float
    revision: int
    others_scale: float
    lifted: Optional[LiftedItem]
    moving: Tuple[MovingItem, ...]

    @classmethod
    def from_json(cls, value: dict, where: str) -> "ListState":
        return cls(_field(value, "titleBar", where, _float), _field(value, "itemHeight", where, _float),
                   _field(value, "scroll", where, _float), _field(value, "revision", where, _int),
                   _field(value, "othersScale", where, _float),
                   _field(value, "lifted", where, _reader(LiftedItem), optional=True),
                   _field(value, "moving", where, _list(_reader(MovingItem))))


@dataclass(frozen=True)
class State:
    state: str
    detent: Optional[str]
    target: Optional[str]
    top: float
    progress: float
    dim: float
    velocity: float
    screen: Screen
    cause: str
    input_active: bool
    reduce_motion: bool
    detents: Tuple[DetentPosition, ...]
    list: Optional[ListState]
    # From a daemon before cards had a width and appearances: None.
    card: Optional[Card] = None
    appearance: Optional[Appearance] = None
    # From a daemon before sheets opened by touch: None.
    presentation: Optional[Presentation] = None
    region: Optional[Region] = None
    # Which sheet this is: a program's (open_sheet), None for the shared sheet; and the
    # programs' sheets presented, bottom to top, the shown one last.
    sheet: Optional[str] = None
    stack: Tuple[str, ...] = ()
    # What keys or a screen reader put the focus on: "close" or an item's id (None: nothing).
    focus: Optional[str] = None

    @property
    def is_idle(self) -> bool:
        """At rest with no finger down and no replayed input to come: nothing moves until a call."""
        return self.state == "resting" and not self.input_active

    @classmethod
    def from_json(cls, value: dict, where: str = "state") -> "State":
        dim = _field(value, "dim", where, _float)
        if not 0 <= dim <= 1:
            raise ProtocolError(f"{where}.dim is {dim}, outside 0-1")
        return cls(
            state=_field(value, "state", where, _one_of("resting", "dragging", "settling")),
            detent=_field(value, "detent", where, _string, optional=True),
            target=_field(value, "target", where, _string, optional=True),
            top=_field(value, "top", where, _float),
            progress=_field(value, "progress", where, _float),
            dim=dim,
            velocity=_field(value, "velocity", where, _float),
            screen=_field(value, "screen", where, _reader(Screen)),
            cause=_field(value, "cause", where, _one_of("initial", "user", "animation", "command", "keys")),
            input_active=_field(value, "inputActive", where, _bool),
            reduce_motion=_field(value, "reduceMotion", where, _bool),
            detents=_field(value, "detents", where, _list(_reader(DetentPosition))),
            list=_field(value, "list", where, _reader(ListState), optional=True),
            card=_field(value, "card", where, _reader(Card), optional=True),
            appearance=_field(value, "appearance", where, _reader(Appearance), optional=True),
            presentation=_field(value, "presentation", where, _reader(Presentation), optional=True),
            region=_field(value, "region", where, _reader(Region), optional=True),
            sheet=_field(value, "sheet", where, _string, optional=True),
            stack=_field(value, "stack", where, _list(_string), optional=True) or (),
            focus=_field(value, "focus", where, _string, optional=True),
        )


@dataclass(frozen=True)
class Gesture:
    kind: str
    phase: str
    x: float
    y: float
    vx: Optional[float]
    vy: Optional[float]
    direction: Optional[str]

    @classmethod
    def from_json(cls, value: dict, where: str = "gesture") -> "Gesture":
        return cls(_field(value, "kind", where, _string), _field(value, "phase", where, _string),
                   _field(value, "x", where, _float), _field(value, "y", where, _float),
                   _field(value, "vx", where, _float, optional=True), _field(value, "vy", where, _float, optional=True),
                   _field(value, "direction", where, _string, optional=True))


@dataclass(frozen=True)
class Event:
    """What the content's client hears: item-tapped (item), item-toggled (item, on),
    reorder-began (item, index), reorder-moved (item, from_, to), reorder-ended (item, order),
    dismiss-attempted (cause) or presented (cause: edge-swipe, bar-tap, bar-swipe, control)."""
    event: str
    item: Optional[str] = None
    index: Optional[int] = None
    from_: Optional[int] = None
    to: Optional[int] = None
    order: Optional[Tuple[str, ...]] = None
    cause: Optional[str] = None
    on: Optional[bool] = None
    # The program's sheet it happened on (open_sheet); None on the shared sheet.
    sheet: Optional[str] = None
    # On a program's sheet: the revision of the content it happened on (get_content's).
    revision: Optional[int] = None

    @classmethod
    def from_json(cls, value: dict, where: str) -> "Event":
        return cls(_field(value, "event", where, _string), _field(value, "item", where, _string, optional=True),
                   _field(value, "index", where, _int, optional=True), _field(value, "from", where, _int, optional=True),
                   _field(value, "to", where, _int, optional=True),
                   _field(value, "order", where, _list(_string), optional=True),
                   _field(value, "cause", where, _string, optional=True),
                   _field(value, "on", where, _bool, optional=True),
                   _field(value, "sheet", where, _string, optional=True),
                   _field(value, "revision", where, _int, optional=True))


@dataclass(frozen=True)
class Update:
    """One reply of Monitor: the state, and the gesture and events that came with it."""
    seq: int
    timestamp_usec: int
    state: State
    gesture: Optional[Gesture]
    events: Tuple[Event, ...]

    @classmethod
    def from_json(cls, value: dict) -> "Update":
        return cls(_field(value, "seq", "", _int), _field(value, "timestampUSec", "", _int),
                   _field(value, "state", "", _reader(State)), _field(value, "gesture", "", _reader(Gesture), optional=True),
                   _field(value, "events", "", _list(_reader(Event)), optional=True) or ())


@dataclass(frozen=True)
class Device:
    name: str
    node: str
    type: str
    used: bool
    reason: str

    @classmethod
    def from_json(cls, value: dict, where: str) -> "Device":
        return cls(_field(value, "name", where, _string), _field(value, "node", where, _string),
                   _field(value, "type", where, _string), _field(value, "used", where, _bool),
                   _field(value, "reason", where, _string))


#: The upper bounds of the daemon's latency buckets, in microseconds (one more bucket is above).
LATENCY_BOUNDS_USEC = (50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000)


def _count(value: Any, path: str) -> int:
    number = _int(value, path)
    if number < 0:
        raise ProtocolError(f"{path} is not a count: {value!r}")
    return number


@dataclass(frozen=True)
class DeviceFrames:
    node: str
    name: str
    frames: int

    @classmethod
    def from_json(cls, value: dict, where: str) -> "DeviceFrames":
        return cls(_field(value, "node", where, _string), _field(value, "name", where, _string),
                   _field(value, "frames", where, _count))


@dataclass(frozen=True)
class Latency:
    """From a touch frame's time to its state being published: `counts[i]` durations up to
    `LATENCY_BOUNDS_USEC[i]` (and above the bound before), the last above them all."""
    counts: Tuple[int, ...]
    sum_usec: int

    @classmethod
    def from_json(cls, value: dict, where: str) -> "Latency":
        bounds = _field(value, "boundsUSec", where, _list(_int))
        if bounds != LATENCY_BOUNDS_USEC:
            raise ProtocolError(f"{where}.boundsUSec is {list(bounds)}, not {list(LATENCY_BOUNDS_USEC)}")
        counts = _field(value, "counts", where, _list(_count))
        if len(counts) != len(LATENCY_BOUNDS_USEC) + 1:
            raise ProtocolError(f"{where}.counts has {len(counts)} buckets, not {len(LATENCY_BOUNDS_USEC) + 1}")
        return cls(counts, _field(value, "sumUSec", where, _int))


@dataclass(frozen=True)
class Stats:
    """What the daemon counted since it started (GetStats)."""
    uptime_usec: int
    reloads: int
    devices: Tuple[DeviceFrames, ...]
    gestures: int
    states_published: int
    states_conflated: int
    subscribers: int
    subscribers_dropped: int
    connections: int
    publish_latency: Latency
    #: The seat whose panel the daemon serves (sheetd --seat).
    seat: str = "seat0"
    #: Fingers the daemon holds down now, and how long the first has been down.
    fingers_down: int = 0
    fingers_held_usec: int = 0

    @classmethod
    def from_json(cls, value: dict, where: str = "stats") -> "Stats":
        return cls(_field(value, "uptimeUSec", where, _count), _field(value, "reloads", where, _count),
                   _field(value, "devices", where, _list(_reader(DeviceFrames))), _field(value, "gestures", where, _count),
                   _field(value, "statesPublished", where, _count), _field(value, "statesConflated", where, _count),
                   _field(value, "subscribers", where, _count), _field(value, "subscribersDropped", where, _count),
                   _field(value, "connections", where, _count), _field(value, "publishLatency", where, _reader(Latency)),
                   _field(value, "seat", where, _string, optional=True) or "seat0",
                   _field(value, "fingersDown", where, _count, optional=True) or 0,
                   _field(value, "fingersHeldUSec", where, _count, optional=True) or 0)

