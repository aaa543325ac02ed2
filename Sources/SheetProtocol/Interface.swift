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
    type DetentPosition (name: string, top: float)

    # What a renderer needs to draw the sheet. top is in pixels from the top of the
    # screen, velocity is the card's in pixels per second (positive downwards): the
    # finger's while dragging (slowed by the rubber band past the top, as of the last
    # motion) and the animation's while settling. progress is 0 when hidden and 1 when
    # expanded, dim is the dim's opacity. cause says what moved it last.
    type State (
      state: (resting, dragging, settling),
      detent: ?string,
      target: ?string,
      top: float,
      progress: float,
      dim: float,
      velocity: float,
      screen: Screen,
      cause: (initial, user, animation, command),
      detents: []DetentPosition
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

    # An input device, whether the daemon uses it, and why.
    type Device (name: string, node: string, type: string, used: bool, reason: string)

    # The sheet now.
    method GetState() -> (state: State)

    # Call with more: the state at once, then one reply per change. seq counts changes;
    # a gap means a slow reader was given the newest state instead of a backlog.
    # timestampUSec is the CLOCK_MONOTONIC instant the state describes.
    method Monitor() -> (seq: int, timestampUSec: int, state: State, gesture: ?Gesture)

    # Show the sheet at a detent (the configured initial one when left out).
    method Present(detent: ?string) -> ()

    # Hide the sheet.
    method Dismiss() -> ()

    # Move the sheet to a detent.
    method SetDetent(detent: string) -> ()

    # A renderer tells the daemon the size of the display it draws on.
    method SetScreen(width: int, height: int, scale: ?float) -> ()

    # The input devices the daemon has seen.
    method ListDevices() -> (devices: []Device)

    # Control calls need root, the daemon's own user, or the socket's group.
    error NotAllowed (method: string)

    error UnknownDetent (detent: string, known: []string)

    error InvalidScreen (reason: string)

    # The bytes were not a varlink call; the connection is closed after this reply.
    error InvalidMessage (reason: string)

    error TooManyConnections (limit: int)
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
