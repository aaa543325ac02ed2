import SheetCore
import SheetProtocol

/// What the sheet says aloud as it changes, for a person who cannot see it: the words a
/// renderer hands a speech synthesizer (`sheet-render --speech`), and later a screen reader's
/// announcements. Fed every state a renderer draws, it says
///
/// - when the sheet opens: its title, `sheet`, and where it rests (`Tickets, sheet, half open`);
/// - as the focus moves: the element, what it is, its value and where it is in its section
///   (`Spoken guidance, switch, off, 3 of 4`; `Close, button`);
/// - when the focused item's value changes (a toggle flipped): the new value (`on`);
/// - when it closes: its title, `sheet` and `closed`.
///
/// A state that changes nothing of these says nothing, so that the frames of a drag are
/// silent. The words are English; content in another language still has its own labels read.
public struct Announcer: Sendable {
    private var wasOpen = false
    private var focus: FocusedElement?
    /// The focused item's value as last said, and the content it was read from.
    private var focusValue: String?
    private var heard: SheetContent?

    public init() {}

    /// The utterances for `state` (with the content it shows), in the order to say them.
    public mutating func utterances(for state: SheetState, content: SheetContent?) -> [String] {
        var said: [String] = []
        let closed = state.isClosed
        let open = !closed && state.state != .dragging
        if open && !wasOpen {
            said.append(Self.opening(state, content: content))
        } else if closed && wasOpen {
            said.append(Self.closing(content: content))
        }
        if closed || open { wasOpen = open }
        let element = closed ? nil : state.focus
        // The item is described again only when the focus or the content changed (equal
        // content shares its arrays, so the test is quick): a drag's states cost nothing here.
        if element != focus {
            focus = element
            focusValue = nil
            if let element, let words = Self.describe(element, in: content) {
                said.append(words.full)
                focusValue = words.value
            }
        } else if let element, case .item = element, content != heard,
                  let words = Self.describe(element, in: content), words.value != focusValue {
            focusValue = words.value
            if let value = words.value { said.append(value) }
        }
        heard = content
        return said
    }

    /// What is said as the sheet opens: its name and where it rests (`Tickets, sheet, half open`).
    public static func opening(_ state: SheetState, content: SheetContent?) -> String {
        "\(name(of: content)), \(place(of: state))"
    }

    /// What is said as it closes: `Tickets, sheet, closed`.
    public static func closing(content: SheetContent?) -> String { "\(name(of: content)), closed" }

    /// A sheet without a title is named by what it is alone.
    static func name(of content: SheetContent?) -> String {
        content.map(\.title).flatMap { $0.isEmpty ? nil : "\($0), sheet" } ?? "Sheet"
    }

    /// Where the sheet rests, or is going: `half open`, `fully open`, or a custom detent's name.
    static func place(of state: SheetState) -> String {
        switch (state.target ?? state.detent)?.description {
        case "half": return "half open"
        case "expanded": return "fully open"
        case let name?: return "open at \(name)"
        case nil: return "open"
        }
    }

    /// An element's words: in full (`Wi-Fi, switch, off, 1 of 2`), and its value alone.
    static func describe(_ element: FocusedElement, in content: SheetContent?) -> (full: String, value: String?)? {
        switch element {
        case .close:
            return ("Close, button", nil)
        case .item(let id):
            guard let content = content?.withSectionsWrittenOut,
                  let index = content.items.firstIndex(where: { $0.id == id }) else { return nil }
            let item = content.items[index]
            var words = [item.label]
            if !item.subtitle.isEmpty { words.append(item.subtitle) }
            var value: String?
            switch item.accessory {
            case .toggle(let isOn)?:
                words.append("switch")
                value = isOn ? "on" : "off"
            case .check(let isChecked)?:
                value = isChecked ? "checked" : "not checked"
            case .chevron?:
                words.append("button")
            case .value(let text)?:
                value = text
            case nil:
                break
            }
            if let value { words.append(value) }
            if item.disabled { words.append("dimmed") }
            let section = content.items.indices.filter { content.items[$0].section == item.section }
            if let position = section.firstIndex(of: index) { words.append("\(position + 1) of \(section.count)") }
            return (words.joined(separator: ", "), value)
        }
    }
}
