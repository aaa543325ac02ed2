import SheetCore
import Yams

/// Content from a file (JSON or YAML: `title`, `items` of `id` and `label`, `guarded`) or
/// from the `content:` key of sheetd.yaml. Errors say `FILE:LINE: reason`.
///
///     title: Settings
///     guarded: false
///     items:
///       - {id: wifi, label: Wi-Fi}
///       - {id: bluetooth, label: Bluetooth}
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
                guard case .scalar(let flag) = value, let guarded = Bool.construct(from: flag) else {
                    throw ConfigurationError(file: path, line: line, reason: "`guarded` wants true or false")
                }
                content.guarded = guarded
            case "items":
                guard case .sequence(let items) = value else {
                    throw ConfigurationError(file: path, line: line, reason: "`items` wants a list of {id, label}")
                }
                guard items.count <= SheetContent.Limits.items else {
                    throw ConfigurationError(file: path, line: line, reason: "more than \(SheetContent.Limits.items) items")
                }
                for item in items {
                    itemLines.append(item.mark?.line)
                    guard case .mapping(let fields) = item, case .scalar(let id)? = fields["id"] else {
                        throw ConfigurationError(file: path, line: item.mark?.line ?? line,
                                                 reason: "item \(content.items.count) wants an `id` (and a `label`)")
                    }
                    var label = ""
                    if let labelNode = fields["label"] {
                        guard case .scalar(let text) = labelNode else {
                            throw ConfigurationError(file: path, line: labelNode.mark?.line, reason: "`label` wants text")
                        }
                        label = text.string
                    }
                    content.items.append(SheetItem(id: id.string, label: label))
                }
            default:
                throw ConfigurationError(file: path, line: line,
                                         reason: "unknown content key `\(key.string)`; the keys are title, items, guarded")
            }
        }
        if let problem = content.problem() {
            let line = problem.index.flatMap { $0 < itemLines.count ? itemLines[$0] : nil } ?? node.mark?.line
            throw ConfigurationError(file: path, line: line, reason: problem.description)
        }
        return content
    }
}
