import ArgumentParser
import SheetConfig

/// The configuration file under the flags, as the daemon reads them, so that one recording
/// takes the same path through `sheetctl replay` and `sheetd --input replay:…`.
enum EngineSettingsOptions {
    static func settings(config: String?, flags: [(String, String?)]) throws -> Settings {
        do {
            return try Settings.resolve(configPath: config, flags: flags)
        } catch .file(let error) {
            printError("\(error)")
            throw ExitCode(ExitStatus.config)
        } catch .flag(let reason) {
            throw ValidationError(reason)
        }
    }
}
