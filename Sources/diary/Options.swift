import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryTerminal
import Foundation
import Terminal

// MARK: - Global options

/// The environment, read once per run. `ProcessInfo.environment` builds a new dictionary at
/// each call (callgrind: about 390,000 instructions here, most of them splitting every
/// variable at its `=` character by character), and `diary list` asked for it 17 times, a
/// tenth of the whole run. Nothing in the CLI changes its own environment.
enum RunEnvironment {
    static let variables = ProcessInfo.processInfo.environment
}

/// `--server` and `--token`, shared by every command; `DIARY_SERVER` and `DIARY_TOKEN` fill them in
/// when absent. The environment is read here, not as option defaults, so that help never shows a token.
struct GlobalOptions: ParsableArguments {
    static let defaultServer = "http://127.0.0.1:8080"

    @Option(help: ArgumentHelp(
        "The diary server (default: $DIARY_SERVER, else \(GlobalOptions.defaultServer)).", valueName: "url"))
    var server: String?

    @Option(help: ArgumentHelp("The API token (default: $DIARY_TOKEN).", valueName: "token"))
    var token: String?

    @Flag(help: "Show dates in UTC instead of the local time zone ($TZ).")
    var utc = false

    @Flag(help: "No bold or colour (also when $NO_COLOR is set).")
    var noColor = false

    @Flag(help: "Read the local copy (diary sync) instead of the server: list, show, search, tags and browse.")
    var offline = false

    /// How this run shows dates and emphasis.
    var style: DisplayStyle {
        DisplayStyle.resolve(
            utc: utc, noColor: noColor, outputIsTerminal: Terminal.isTerminal(.output), environment: RunEnvironment.variables,
            siteURL: try? serverURL()
        )
    }

    func validate() throws {
        _ = try serverURL()
    }

    /// The server from `--server`, else `DIARY_SERVER`, else the default.
    func serverURL(environment: [String: String] = RunEnvironment.variables) throws -> URL {
        let (text, source) = if let server {
            (server, "--server")
        } else if let value = environment["DIARY_SERVER"], !value.isEmpty {
            (value, "DIARY_SERVER")
        } else {
            (Self.defaultServer, "the default server")
        }
        guard let url = DiaryClient.serverURL(from: text) else {
            throw ValidationError("\(source) must be an http:// or https:// URL such as \(Self.defaultServer), not '\(text)'")
        }
        return url
    }

    /// The token from `--token`, else `DIARY_TOKEN`; nil when neither is set or it is empty.
    func resolvedToken(environment: [String: String] = RunEnvironment.variables) -> String? {
        let value = token ?? environment["DIARY_TOKEN"]
        return value?.isEmpty == false ? value : nil
    }

    /// A client for the chosen server. With `requiringToken`, fails before any request when
    /// there is no token, so that nobody types an entry only to have it refused.
    func makeClient(requiringToken: Bool = false) throws -> DiaryClient {
        let token = resolvedToken()
        if requiringToken && token == nil {
            throw CommandFailure.missingToken
        }
        return DiaryClient(serverURL: try serverURL(), token: token)
    }
}

// MARK: - Shared arguments

/// An id argument must be positive; argument-parser already refuses what is not an integer.
func validateID(_ id: Int64, _ name: String) throws {
    guard id > 0 else {
        throw ValidationError("\(name) must be a positive integer, not \(id)")
    }
}

extension Visibility: ExpressibleByArgument {}
