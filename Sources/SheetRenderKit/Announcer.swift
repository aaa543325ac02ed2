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
/// - when it closes: its title, `sheet` and `closed`;
/// - when another program's sheet is shown in its place (or comes back): as it opens.
///
/// A state that changes nothing of these says nothing, so that the frames of a drag are
/// silent. The sheet's own words are in the content's language (`SheetWords`, from the catalog
/// `words` names for a language tag), its sentences in that language's order.
public struct Announcer: Sendable {
    private var wasOpen = false
    /// Which sheet was said last (`SheetState.sheet`): another one open is said as it opens.
    private var sheet: String?
    private var focus: FocusedElement?
    /// The focused item's value as last said, and the content it was read from.
    private var focusValue: String?
    private var heard: SheetContent?

    /// The words for content in a language tag (`SheetCatalog.shared.words(forTag:)`).
    private let words: @Sendable (String) -> SheetWords

    public init(words: @escaping @Sendable (String) -> SheetWords = { _ in .english }) {
        self.words = words
    }

    /// The utterances for `state` (with the content it shows), in the order to say them.
    public mutating func utterances(for state: SheetState, content: SheetContent?) -> [String] {
        var said: [String] = []
        // Looked up only when something is said: a drag's states ask the catalog nothing.
        let lookUp = self.words, tag = content?.language ?? ""
        lazy var words = lookUp(tag)
        let closed = state.isClosed
        let open = !closed && state.state != .dragging
        // Another program's sheet shown (or one coming back): said as it opens, its focus anew.
        if state.sheet != sheet {
            sheet = state.sheet
            if wasOpen && open { wasOpen = false }
            focus = nil
        }
        if open && !wasOpen {
            said.append(Self.opening(state, content: content, words: words))
        } else if closed && wasOpen {
            said.append(Self.closing(content: content, words: words))
        }
        if closed || open { wasOpen = open }
        let element = closed ? nil : state.focus
        // The item is described again only when the focus or the content changed (equal
        // content shares its arrays, so the test is quick): a drag's states cost nothing here.
        if element != focus {
            focus = element
            focusValue = nil
            if let element, let described = Self.describe(element, in: content, words: words) {
                said.append(described.full)
                focusValue = described.value
            }
        } else if let element, case .item = element, content != heard,
                  let described = Self.describe(element, in: content, words: words), described.value != focusValue {
            focusValue = described.value
            if let value = described.value { said.append(value) }
        }
        heard = content
        return said
    }

    /// What is said as the sheet opens: its name and where it rests (`Tickets, sheet, half open`).
    public static func opening(_ state: SheetState, content: SheetContent?, words: SheetWords = .english) -> String {
        words.opening(title: content?.title ?? "", place: words.place(detent: (state.target ?? state.detent)?.description))
    }

    /// What is said as it closes: `Tickets, sheet, closed` (a sheet without a title: `Sheet, closed`).
    public static func closing(content: SheetContent?, words: SheetWords = .english) -> String {
        words.closing(title: content?.title ?? "")
    }

    /// An element's words: in full (`Wi-Fi, switch, off, 1 of 2`), and its value alone.
    static func describe(_ element: FocusedElement, in content: SheetContent?,
                         words: SheetWords) -> (full: String, value: String?)? {
        switch element {
        case .close:
            return (words.list([words[.close], words[.button]]), nil)
        case .item(let id):
            guard let content = content?.withSectionsWrittenOut,
                  let index = content.items.firstIndex(where: { $0.id == id }) else { return nil }
            let item = content.items[index]
            var said = [item.label]
            if !item.subtitle.isEmpty { said.append(item.subtitle) }
            var value: String?
            switch item.accessory {
            case .toggle(let isOn)?:
                said.append(words[.switchRole])
                value = words[isOn ? .switchOn : .switchOff]
            case .check(let isChecked)?:
                value = words[isChecked ? .checked : .notChecked]
            case .chevron?:
                said.append(words[.button])
            case .value(let text)?:
                value = text
            case nil:
                break
            }
            if let value { said.append(value) }
            if item.disabled { said.append(words[.dimmed]) }
            let section = content.items.indices.filter { content.items[$0].section == item.section }
            if let position = section.firstIndex(of: index) { said.append(words.position(position + 1, of: section.count)) }
            return (words.list(said), value)
        }
    }
}
