/// The varlink interface descriptions that the daemon serves and clients may check against.
public enum SheetInterface {
    public static let name = "io.sheetd.Sheet"
    public static let serviceName = "org.varlink.service"

    /// `io.sheetd.Sheet` in varlink's interface language. Enum values must be identifiers, so a
    /// gesture's kind (`long-press`) is a string.
    public static let description = """
    # A bottom sheet driven by touch: its state, its gestures, the devices behind it, and
    # control calls for people and programs.
    interface io.sheetd.Sheet

    # The display touches are mapped onto, in pixels; scale is pixels per point.
    type Screen (width: int, height: int, scale: float)

    # Where a detent puts the card's top edge, in pixels from the top of the screen.
    # A detent's name is 1 to 15 bytes of letters, digits, - and _.
    type DetentPosition (name: string, top: float)

    # The card's horizontal extent in pixels: the screen's width, or on a wider screen the
    # configured max-width placed by align. Beside it is the dim. A daemon that does not
    # send it has a card as wide as the screen.
    type Card (x: float, width: float)

    # How to draw the sheet, the same in every renderer: theme is light, dark, auto (the
    # renderer's preference, light when it has none), high-contrast or high-contrast-dark
    # (text at 7:1, lines and the card's edge drawn); colours are #rrggbb; font is
    # a fontconfig pattern (empty: the renderer's own); textScale is 0.5 to 3, on top of
    # the screen's scale, or null (auto) for the renderer's (a desktop session's text
    # scaling); card and dim are null for the theme's; cornerRadius is in points.
    type Appearance (
      theme: string,
      accent: string,
      font: string,
      textScale: ?float,
      card: ?string,
      dim: ?string,
      cornerRadius: float
    )

    # How the sheet is opened, closed and shares the screen. gestures: the ways a person
    # opens it by touch, edge-swipe (a swipe up from a band edgeBand points tall at the
    # bottom edge) and bottom-bar (closed, it rests as a bar barHeight points tall, the
    # collapsed detent; a tap or a swipe up opens it); none when empty. modal: the dim
    # covers the rest and a tap on it dismisses; not modal: no dim, and touches outside
    # the region are not the sheet's. canOpen and canClose: whether a person may open or
    # close it (programs always may). touchExploration: explore by touch, for a person who
    # cannot see the screen (one finger moves the focus and never taps, a double tap
    # activates, flicks step, two fingers act as one), as set or while the sheet is spoken.
    # speech: off, on, or headset (while headphones are plugged); speaking: renderers on a
    # kiosk's display speak the sheet now; speechRate and speechVolume: speech-dispatcher's
    # -100 to 100.
    type Presentation (
      gestures: []string,
      edgeBand: float,
      barHeight: float,
      modal: bool,
      canOpen: bool,
      canClose: bool,
      touchExploration: bool,
      speech: string,
      speaking: bool,
      speechRate: int,
      speechVolume: int
    )

    # A rectangle of the screen in pixels; empty when width or height is 0.
    type Region (x: float, y: float, width: float, height: float)

    # What a renderer needs to draw the sheet. top is in pixels from the top of the
    # screen, velocity is the card's in pixels per second (positive downwards): the
    # finger's while dragging (slowed by the rubber band past the top, as of the last
    # motion) and the animation's while settling. progress is 0 when hidden and 1 when
    # expanded, dim is the dim's opacity. cause says what changed it last: a finger (user),
    # the card on its own (animation), a program (command), or a key, a knob or a switch
    # moving the focus or the sheet (keys). inputActive: a
    # finger is down, or a recording the daemon plays has frames still to come; the sheet
    # may move without a call while it holds (resting and not inputActive: idle).
    # reduceMotion: the card is placed at once where it goes and only the dim fades.
    # region: the part of the screen the sheet takes now, what a renderer under a
    # compositor makes its input region: the whole screen while a modal sheet is shown or
    # moves, the card (and the grabber above it) while a non-modal one is, and at rest
    # closed the bar, or the edge band when an edge swipe may open it, or nothing.
    # sheet: which sheet this is, a program's (OpenSheet) or null for the shared sheet;
    # stack: the programs' sheets presented, bottom to top, the shown one last (left out
    # while there is none).
    # focus: what keys, a knob or a switch have put the focus on, close (the close
    # button) or an item's id, null for nothing; focusVisible: its ring is drawn (a key was
    # used since the last touch).
    type State (
      state: (resting, dragging, settling),
      detent: ?string,
      target: ?string,
      top: float,
      progress: float,
      dim: float,
      velocity: float,
      screen: Screen,
      cause: (initial, user, animation, command, keys),
      inputActive: bool,
      reduceMotion: bool,
      focusVisible: ?bool,
      focus: ?string,
      card: ?Card,
      appearance: ?Appearance,
      presentation: ?Presentation,
      region: ?Region,
      detents: []DetentPosition,
      list: ?List,
      sheet: ?string,
      stack: ?[]string
    )

    # A gesture where it happened: kind is tap, long-press, pan or swipe; phase is began,
    # changed, ended, cancelled or recognized; vx and vy (pixels per second) when a pan
    # ends or a swipe is recognized; direction for a swipe.
    type Gesture (
      kind: string,
      phase: string,
      x: float,
      y: float,
      vx: ?float,
      vy: ?float,
      direction: ?string
    )

    # One row of the sheet's list: an id the client chose (1 to 64 bytes, unique, not
    # close, the close button's name in a state's focus) and its
    # label (at most 256 bytes); a second line (subtitle, at most 256 bytes; the row is
    # 72 pt instead of 56); an icon (a freedesktop icon name: 1 to 64 bytes of letters,
    # digits, -, _ and ., not starting with a dot; never a path); an accessory at the
    # trailing edge: toggle or check with on, chevron, or value with a short value (at
    # most 64 bytes); disabled (drawn faded, taps and long presses do nothing); and the
    # section it is in (at most 128 bytes; an item that names none is in the section of
    # the item before it, and the daemon writes it out on every item): a header stands
    # above the first item of each section, and a reorder stays within its section.
    type Item (id: string, label: string, subtitle: ?string, icon: ?string, accessory: ?string, on: ?bool, value: ?string, disabled: ?bool, section: ?string)

    # What the sheet holds: a title (at most 256 bytes), up to 1024 items, guarded
    # (unsaved changes: a user cannot dismiss the sheet, Dismiss needs force), and lang,
    # the BCP 47 tag of the language its text is in (ko, pt-BR; empty: not said), which
    # chooses the voice it is spoken in.
    type Content (title: string, items: []Item, guarded: bool, lang: string)

    # An item drawn away from its slot: index is its position in the list, offset how far
    # from its slot it is drawn (pixels, down positive).
    type LiftedItem (item: string, index: int, offset: float, scale: float, opacity: float)
    type MovingItem (item: string, index: int, offset: float)

    # The list while the sheet has content: it starts titleBar pixels below the card's
    # top, in rows itemHeight pixels tall (twoLineItemHeight for an item with a second
    # line, and a section's header headerHeight tall above its first row), scrolled by scroll pixels (0 = first item at
    # the top); the picked-up item and the items still sliding after a swap are drawn
    # away from their slots, every other item sits in its slot at othersScale. revision
    # changes with the content and its order: one per reorder-moved swap and one per
    # item-toggled, so a renderer that applies them keeps up, and one per SetContent (GetContent says which
    # revision it returns). settled: nothing in the list moves (no finger on it, no
    # momentum, no animation).
    type List (
      titleBar: float,
      itemHeight: float,
      twoLineItemHeight: ?float,
      headerHeight: ?float,
      scroll: float,
      revision: int,
      settled: bool,
      othersScale: float,
      lifted: ?LiftedItem,
      moving: []MovingItem
    )

    # What the content's client hears. event is item-tapped (item), item-toggled (item, on:
    # a tap flipped its toggle, already flipped in the daemon), reorder-began (item,
    # index), reorder-moved (item, from, to), reorder-ended (item, order),
    # dismiss-attempted (cause: swipe-down, drag, dim-tap, close-button or back) or
    # presented (the sheet left its floor, hidden or the bar, for a detent above it; cause:
    # edge-swipe, bar-tap, bar-swipe, control or key). sheet: the program's sheet it happened
    # on (OpenSheet), whose program alone hears it; null on the shared sheet. revision: on a
    # program's sheet, the revision of the content it happened on (GetContent's).
    type Event (
      event: string,
      sheet: ?string,
      revision: ?int,
      item: ?string,
      index: ?int,
      from: ?int,
      to: ?int,
      order: ?[]string,
      cause: ?string,
      on: ?bool
    )

    # An input device, whether the daemon uses it, and why. A device a program feeds
    # over io.sheetd.Input has node plugin:ID and the pid and uid of that program.
    type Device (name: string, node: string, type: (touchscreen, touchpad, keyboard, keys, pointer, tablet, other), used: bool, reason: string, pid: ?int, uid: ?int)

    # The sheet now.
    method GetState() -> (state: State)

    # Call with more: the state at once, then one reply per change. seq counts changes;
    # a gap means a slow reader was given the newest state instead of a backlog.
    # timestampUSec is the CLOCK_MONOTONIC instant the state describes. With maxRate
    # (1 to 1000), at most that many states a second, the newest each time: a state that
    # carries an event goes at once, one in which only a gesture under way moved (the
    # sheet, its list and inputActive as before) is not sent on its own, and the last one
    # always arrives. The first reply carries the events of the caller's program's sheets
    # that happened while none of its connections followed (64 a sheet at most).
    method Monitor(maxRate: ?int) -> (seq: int, timestampUSec: int, state: State, gesture: ?Gesture, events: ?[]Event)

    # Opens a sheet owned by the caller's program (its process: every connection of it) and
    # presents it (at detent, else the configuration's initial detent): one sheet is shown
    # at a time, the topmost presented one of the system layer, else of the app layer (the
    # default), else the shared sheet. Its events go to the program's Monitors alone; it
    # closes when the program's last connection does.
    method OpenSheet(title: ?string, items: ?[]Item, guarded: ?bool, lang: ?string, layer: ?string, detent: ?string) -> (sheet: string)

    # Closes one of the program's sheets (animated as a dismissal when shown); the one
    # beneath comes back where it rested.
    method CloseSheet(sheet: string) -> ()

    # A program's sheet in the stack, bottom to top: its layer, whether it is presented and
    # shown, and its owner as it was when it opened the sheet (pid, uid, the command's name).
    type StackedSheet (sheet: string, layer: string, presented: bool, shown: bool, pid: int, uid: int, command: string)

    # The programs' sheets: every one to root, the daemon's user and the renderers' group; to
    # any other caller, its own.
    method ListSheets() -> (sheets: []StackedSheet)

    # The calls below that take sheet act on that sheet of the caller's; without it, on the
    # caller's topmost sheet, or the shared sheet when it has none.

    # Show the sheet at a detent (the configured initial one when left out).
    method Present(detent: ?string, sheet: ?string) -> ()

    # Hide the sheet. A guarded sheet only with force (after asking the user).
    method Dismiss(force: ?bool, sheet: ?string) -> ()

    # Replace what the sheet holds; each field left out keeps its value. New items reset
    # the order. Bad content is InvalidParameter naming the field and index
    # (items[3].id) and changes nothing.
    method SetContent(title: ?string, items: ?[]Item, guarded: ?bool, lang: ?string, sheet: ?string) -> ()

    # What the sheet holds, its items in the list's current order, and the revision
    # (List.revision) of that content and order; sheet: whose it is (a program's, null for
    # the shared sheet). A renderer's GetContent without sheet answers for the sheet shown;
    # with sheet, for any (the screen reader's window of each sheet is named by its title).
    method GetContent(sheet: ?string) -> (content: Content, revision: int, sheet: ?string)

    # Move the sheet to a detent.
    method SetDetent(detent: string, sheet: ?string) -> ()

    # A renderer tells the daemon the size of the display it draws on.
    method SetScreen(width: int, height: int, scale: ?float) -> ()

    # Less motion, for people who ask for it: the card is placed at once where it goes and
    # the dim cross-fades; off brings the springs back. It holds until changed, and with a
    # state directory across restarts.
    method SetReduceMotion(enabled: bool) -> ()

    # Changes how the sheet looks (day and night, a brand's accent): each field given
    # replaces the current one; card or dim null goes back to the theme's, textScale
    # null to the renderer's (auto). Every state
    # after it carries the new appearance. Refused with InvalidParameter naming the field
    # when a value breaks its limit (docs/configuration.md).
    method SetAppearance(theme: ?string, accent: ?string, font: ?string, textScale: ?float, card: ?string, dim: ?string, cornerRadius: ?float) -> ()

    # Changes how the sheet is opened, closed and shares the screen: each field given
    # replaces the current one (gestures: a list of edge-swipe and bottom-bar, empty for
    # none). A bar that comes, goes or changes height gives new detents, as a reload does.
    # It holds until changed, and with a state directory across restarts. Refused with
    # InvalidParameter naming the field when a value breaks its limit.
    method SetPresentation(gestures: ?[]string, edgeBand: ?float, barHeight: ?float, modal: ?bool, canOpen: ?bool, canClose: ?bool, touchExploration: ?bool, speech: ?string, speechRate: ?int, speechVolume: ?int) -> ()

    # For a person who uses the sheet through another program (an assistive technology, a
    # remote): puts the focus on element (an item's id, or close, as the state's focus names
    # it), then does command as that person's key would (a key map command: next, previous,
    # left, right, up, down, first, last, page-up, page-down, activate, back, open, move-up,
    # move-down), with the same rules: element and activate is a tap on it, back a dismissal
    # a guarded sheet refuses (dismiss-attempted). Either may be left out. An element that
    # cannot take the focus is CannotFocus, with why.
    method Focus(element: ?string, command: ?string, sheet: ?string) -> ()

    # The input devices the daemon has seen.
    method ListDevices() -> (devices: []Device)

    # What the daemon has done since it started, for an operator (seat: the seat whose panel
    # it serves): frames each input device
    # sent, gestures, states published and those a slow subscriber missed, subscribers
    # dropped, reloads, the seat's touchscreen frames held back while a compositor's
    # touches were forwarded, and the time from a frame to its state's publishing, counted into
    # buckets up to each bound in boundsUSec and one above them all, for one state in 16 (by
    # number: the 1st, the 17th, ...).
    type DeviceFrames (node: string, name: string, frames: int)
    type Latency (boundsUSec: []int, counts: []int, sumUSec: int)
    type Stats (seat: string, uptimeUSec: int, reloads: int, devices: []DeviceFrames, gestures: int, statesPublished: int, statesConflated: int, subscribers: int, subscribersDropped: int, connections: int, fingersDown: int, fingersHeldUSec: int, framesHeldBack: int, publishLatency: Latency)
    method GetStats() -> (stats: Stats)

    # Control calls need root, the daemon's own user, or the control group (named here).
    error NotAllowed (method: string, group: string)

    error UnknownDetent (detent: string, known: []string)

    # Dismiss on a guarded sheet without force.
    error Guarded ()

    error InvalidScreen (reason: string)

    # Focus on an element that cannot take it: unknown, disabled, the close button where a
    # person may not close the sheet, or the sheet not shown.
    error CannotFocus (element: string, reason: string)

    # The bytes were not a varlink call; the connection is closed after this reply.
    error InvalidMessage (reason: string)

    error TooManyConnections (limit: int)

    # No sheet of that id is open (never was, closed, or its owner gone).
    error NoSuchSheet (sheet: string)

    # The sheet is another connection's.
    error NotOwner (sheet: string)

    # Another sheet would pass a limit: per program, or in all.
    error TooManySheets (limit: int)
    """

    /// `org.varlink.service`, which every varlink service provides.
    public static let serviceDescription = """
    # Every varlink service answers this interface: who it is and what it speaks.
    interface org.varlink.service

    method GetInfo() -> (
      vendor: string,
      product: string,
      version: string,
      url: string,
      interfaces: []string
    )

    method GetInterfaceDescription(interface: string) -> (description: string)

    error InterfaceNotFound (interface: string)

    error MethodNotFound (method: string)

    error MethodNotImplemented (method: string)

    error InvalidParameter (parameter: string)

    error PermissionDenied ()

    error ExpectedMore ()
    """
}
