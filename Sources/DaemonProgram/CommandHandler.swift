import Logging
import SheetConfig
import SheetCore
import SheetProtocol
import SheetRules
import SheetServer

/// Control calls and reloads, on the loop's thread. The engine's mapping
/// (`Engine.perform(_: ControlRequest…)`) decides and answers a call; this keeps what outlives
/// the engine (the settings with the screen renderers set, the client's choices) and logs.
/// Both say whether the engine was rebuilt for a new screen or detents: then the loop's input
/// plugins map their fingers afresh and the published detents follow.
struct CommandHandler {
    private let logger: Logger
    /// The settings as read at start or at the last reload, with the screen renderers set.
    private(set) var settings: Settings

    init(settings: Settings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    /// A control call at `now`; `rebuilt`: the screen or the detents changed.
    mutating func perform(_ request: ControlRequest, on engine: inout Engine, at now: Timestamp,
                          choices: inout ClientChoices, into outputs: inout [EngineOutput]) -> (result: ControlResult, rebuilt: Bool) {
        let before = engine.configuration
        let result = engine.perform(request, at: now, into: &outputs)
        guard result == .done else { return (result, false) }
        switch request {
        case .setContent:
            let content = engine.content
            logger.notice("content: \(content.items.count) item(s), title \"\(content.title)\"\(content.guarded ? ", guarded" : "")")
        case .setReduceMotion(let enabled):
            choices.reduceMotion = enabled
        case .setPresentation:
            let presentation = engine.configuration.sheet.presentation
            choices.presentation = presentation
            let gestures = presentation.gestures.members.map { $0.name.description }
            logger.notice("presentation: gestures \(gestures.isEmpty ? "none" : gestures.joined(separator: ",")), \(presentation.modal ? "modal" : "not modal"), can open \(presentation.canOpen), can close \(presentation.canClose), touch exploration \(presentation.touchExploration.map { "\($0)" } ?? "auto")")
        case .setAppearance:
            let appearance = engine.appearance
            choices.appearance = appearance
            logger.notice("appearance: theme \(appearance.theme.name), accent \(appearance.accent), text scale \(appearance.textScale.map { "\($0)" } ?? "auto")")
        default:
            break
        }
        return (result, configured(engine.configuration, from: before))
    }

    /// What follows the engine's configuration changing; true when the engine was rebuilt
    /// (`reconfigure`) and dropped its touches: anything but reduced motion, or a
    /// presentation that keeps the detents' shape, changed.
    mutating func configured(_ configuration: EngineConfiguration, from before: EngineConfiguration) -> Bool {
        var rest = before
        rest.sheet.reduceMotion = configuration.sheet.reduceMotion
        // Only a bar that came, went or changed height rebuilt the engine.
        if !configuration.sheet.presentation.shapesDetentsUnlike(before.sheet.presentation) {
            rest.sheet.presentation = configuration.sheet.presentation
        }
        let rebuilt = rest != configuration
        if rebuilt {
            let screen = configuration.screen
            if screen != before.screen {
                logger.notice("screen is now \(screen.widthInPixels)x\(screen.heightInPixels) at scale \(screen.scale)")
            }
            settings.engine.screen = screen
        }
        if configuration.sheet.reduceMotion != before.sheet.reduceMotion {
            logger.notice("reduced motion \(configuration.sheet.reduceMotion ? "on" : "off")")
        }
        return rebuilt
    }

    /// Applies a configuration read again (SIGHUP): the policy, detents, thresholds and the
    /// content's default take effect now; the screen stays the one renderers set; what only a
    /// start can change (input, sockets, state directory) is reported and left. True when the
    /// engine was rebuilt. Every sheet takes the new configuration (the ones waiting unseen); the
    /// configured content is the shared sheet's alone.
    mutating func reload(_ new: Settings, on engine: inout Engine, sheets: inout SheetRegistry, at now: Timestamp,
                         choices: inout ClientChoices, into outputs: inout [EngineOutput]) -> Bool {
        for (key, old, changed) in [("input", settings.input, new.input), ("socket", settings.socketPath, new.socketPath),
                                    ("input-socket", settings.inputSocketPath ?? "", new.inputSocketPath ?? ""),
                                    ("input-group", settings.inputGroup ?? "", new.inputGroup ?? ""),
                                    ("state-directory", settings.stateDirectory ?? "", new.stateDirectory ?? ""),
                                    ("output", settings.output ?? "", new.output ?? "")] where old != changed {
            logger.warning("reload: `\(key)` changes only at a restart; still \(old.isEmpty ? "none" : old)")
        }
        let before = engine.configuration
        var configuration = new.engine
        configuration.screen = before.screen
        // What the headphones say is the device's, whatever the file.
        configuration.sheet.presentation.headphonesPlugged = before.sheet.presentation.headphonesPlugged
        // Reduced motion as a client set it stays, unless the file's setting changed.
        if new.engine.sheet.reduceMotion == settings.engine.sheet.reduceMotion {
            configuration.sheet.reduceMotion = before.sheet.reduceMotion
        } else {
            choices.reduceMotion = nil
        }
        // So does the presentation as a client set it.
        if new.engine.sheet.presentation == settings.engine.sheet.presentation {
            configuration.sheet.presentation = before.sheet.presentation
        } else {
            choices.presentation = nil
        }
        // The appearance goes its own way (`setAppearance`, below): a file that changes only
        // how the sheet looks rebuilds nothing and cancels no finger.
        let appearanceChanged = new.engine.appearance != settings.engine.appearance
        configuration.appearance = before.appearance
        let configuredBefore = settings.content ?? .empty
        let kept = settings
        settings = new
        (settings.input, settings.socketPath, settings.stateDirectory) = (kept.input, kept.socketPath, kept.stateDirectory)
        (settings.seat, settings.output) = (kept.seat, kept.output)
        (settings.inputSocket, settings.inputGroup) = (kept.inputSocket, kept.inputGroup)
        settings.engine.screen = configuration.screen

        var rest = configuration
        rest.sheet.reduceMotion = before.sheet.reduceMotion
        // A presentation that keeps the detents' shape applies in place, as SetPresentation does.
        if !configuration.sheet.presentation.shapesDetentsUnlike(before.sheet.presentation) {
            rest.sheet.presentation = before.sheet.presentation
        }
        let reconfigures = rest != before
        let configure = { (engine: inout Engine, outputs: inout [EngineOutput]) in
            if reconfigures {
                engine.reconfigure(configuration, at: now, into: &outputs)
            } else {
                // Only these changed: no need to cancel a finger down.
                if configuration.sheet.reduceMotion != before.sheet.reduceMotion {
                    engine.perform(SheetCommand.setReduceMotion(configuration.sheet.reduceMotion), at: now, into: &outputs)
                }
                if configuration.sheet.presentation != before.sheet.presentation {
                    engine.perform(SheetCommand.setPresentation(configuration.sheet.presentation), at: now, into: &outputs)
                }
            }
            // The file's appearance when the file changed it; else what a client set holds.
            if appearanceChanged { engine.setAppearance(new.engine.appearance, at: now, into: &outputs) }
        }
        configure(&engine, &outputs)
        sheets.forEachWaiting(configure)
        if appearanceChanged { choices.appearance = nil }
        let rebuilt = configured(engine.configuration, from: before)
        // The configured content replaces what the shared sheet holds only if no client changed it.
        let configuredContent = new.content ?? .empty
        sheets.withEngine(nil, shown: &engine, into: &outputs) { shared, outputs in
            if shared.content == configuredBefore, configuredContent != configuredBefore {
                shared.setContent(configuredContent, at: now, into: &outputs)
            }
        }
        let sheet = configuration.sheet
        logger.notice("reloaded: policy \(sheet.ruleSet.rawValue), detents \(sheet.detents.map(\.name.description).joined(separator: ",")), reduced motion \(sheet.reduceMotion ? "on" : "off"), log level \(new.logLevel)")
        return rebuilt
    }
}
