import SheetCore
import SheetProtocol
import SheetYAML

/// Content from a file (JSON or YAML: `title`, `items`, `guarded`, `lang`) or from the `content:` key
/// of sheetd.yaml. Errors say `FILE:LINE: reason`. An item has an `id` and a `label`, and may
/// have a `subtitle`, an `icon` name, an `accessory` (`toggle` or `check` with `on`, `chevron`,
/// `value` with `value`), `disabled` and a `section`, as `SetContent` takes them.
///
///     title: Settings
///     guarded: false
///     items:
///       - {id: wifi, label: Wi-Fi, subtitle: Home, icon: network-wireless-symbolic, accessory: toggle, on: true, section: Network}
///       - {id: bluetooth, label: Bluetooth, accessory: chevron}
public enum ContentFile {
    public static func load(path: String) throws(ConfigurationError) -> SheetContent {
        let text: String
        do { text = try Settings.readFile(path) } catch { throw ConfigurationError(file: path, line: nil, reason: error.reason) }
        return try parse(text: text, path: path)
    }

    public static func parse(text: String, path: String) throws(ConfigurationError) -> SheetContent {
        let root = try Settings.compose(text, path: path)
        guard let root else { return .empty }
        return try content(from: root, path: path)
    }

    /// A content file named by a flag or a scalar `content:` value, with the reason alone.
    static func contentOrReason(text path: String) throws(SettingError) -> SheetContent {
        do { return try load(path: path) } catch { throw SettingError("\(error)") }
    }

    /// Reads a `title`/`items`/`guarded` map, then holds it to `SheetContent`'s limits.
    static func content(from node: Node, path: String) throws(ConfigurationError) -> SheetContent {
        guard case .mapping(let mapping) = node else {
            throw ConfigurationError(file: path, line: node.mark?.line, reason: "content must be a map with title, items and guarded")
        }
        var content = SheetContent()
        var itemLines: [Int?] = []
        // Keys are plain and given once: `PlainYAML` refused the rest on their lines.
        for (keyNode, value) in mapping {
            let line = keyNode.mark?.line
            guard case .scalar(let key) = keyNode else {
                throw ConfigurationError(file: path, line: line, reason: "a content key must be a plain word")
            }
            switch key.string {
            case "title":
                guard case .scalar(let title) = value else {
                    throw ConfigurationError(file: path, line: line, reason: "`title` wants text")
                }
                content.title = title.string
            case "guarded":
                guard case .scalar(let flag) = value, let guarded = flag.bool else {
                    throw ConfigurationError(file: path, line: line, reason: "`guarded` wants true or false")
                }
                content.guarded = guarded
            case "lang":
                guard case .scalar(let tag) = value else {
                    throw ConfigurationError(file: path, line: line, reason: "`lang` wants a language tag such as ko")
                }
                content.language = tag.string
            case "items":
                guard case .sequence(let items) = value else {
                    throw ConfigurationError(file: path, line: line, reason: "`items` wants a list of {id, label}")
                }
                guard items.count <= SheetContent.Limits.items else {
                    throw ConfigurationError(file: path, line: line, reason: "more than \(SheetContent.Limits.items) items")
                }
                for item in items {
                    itemLines.append(item.mark?.line)
                    content.items.append(try Self.item(item, index: content.items.count, path: path, line: line))
                }
            default:
                throw ConfigurationError(file: path, line: line,
                                         reason: "unknown content key `\(key.string)`; the keys are title, items, guarded, lang")
            }
        }
        if let problem = content.problem() {
            let line = problem.index.flatMap { $0 < itemLines.count ? itemLines[$0] : nil } ?? node.mark?.line
            throw ConfigurationError(file: path, line: line, reason: problem.description)
        }
        return content
    }

    /// The keys an item may have.
    static let itemKeys = ["id", "label", "subtitle", "icon", "accessory", "on", "value", "disabled", "section"]

    /// One item of `items`: its scalars read as `SetContent` reads an item's JSON (`on` and
    /// `disabled` as booleans, the rest as text), so the file and the wire share one reading.
    static func item(_ node: Node, index: Int, path: String, line: Int?) throws(ConfigurationError) -> SheetItem {
        guard case .mapping(let fields) = node else {
            throw ConfigurationError(file: path, line: node.mark?.line ?? line, reason: "item \(index) wants an `id` (and a `label`)")
        }
        var json: [String: JSONValue] = [:]
        for (keyNode, valueNode) in fields {
            guard case .scalar(let key) = keyNode, itemKeys.contains(key.string) else {
                throw ConfigurationError(file: path, line: keyNode.mark?.line,
                                         reason: "item \(index): unknown key; an item's keys are \(itemKeys.joined(separator: ", "))")
            }
            guard case .scalar(let value) = valueNode else {
                throw ConfigurationError(file: path, line: valueNode.mark?.line, reason: "item \(index): `\(key.string)` wants a single value")
            }
            if key.string == "on" || key.string == "disabled" {
                guard let flag = value.bool else {
                    throw ConfigurationError(file: path, line: valueNode.mark?.line, reason: "item \(index): `\(key.string)` wants true or false")
                }
                json[key.string] = .bool(flag)
            } else {
                json[key.string] = .string(value.string)
            }
        }
        do {
            return try SheetItem(json: .object(json), index: index)
        } catch {
            throw ConfigurationError(file: path, line: node.mark?.line ?? line, reason: error.description)
        }
    }
}
