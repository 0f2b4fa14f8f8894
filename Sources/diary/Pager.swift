import Foundation
import ProcessControl

// MARK: - Pager

/// Long output for a person goes through `$PAGER`, as git and gh do: `less -R` by default, with
/// `LESS=FRX` unless set (one screen prints and returns; colours pass; the screen stays).
enum Pager {
    static func show(_ text: String, environment: [String: String] = RunEnvironment.variables) throws {
        let pager = environment["PAGER"].map { $0.trimmingCharacters(in: .whitespaces) } ?? "less -R"
        guard !pager.isEmpty, pager != "cat" else {
            Output.write(text)
            return
        }
        var environment = environment
        if environment["LESS"] == nil { environment["LESS"] = "FRX" }
        do {
            // Through the shell, so that PAGER may carry arguments ("less -R").
            _ = try ChildProcess.run(["/bin/sh", "-c", pager], environment: environment, input: Array(text.utf8))
        } catch {
            // No pager to be had: the text is still shown.
            Output.write(text)
        }
    }
}
