import Foundation
import Testing

/// The systemd unit in docs/ is one systemd accepts, and every option it gives `serve` is one
/// the built `diary-server` has: a unit that fails to load, or a server that refuses its own
/// command line, would only show on an operator's machine.
@Suite struct ServiceUnitTests {
    static let unit = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/diary-server.service")
    static let installedBinary = "/usr/local/bin/diary-server"
    static let analyze = URL(fileURLWithPath: "/usr/bin/systemd-analyze")

    /// `systemd-analyze verify` on the unit, its binary the built one (verify checks that
    /// `ExecStart`'s program exists and is executable).
    @Test func systemdAcceptsTheUnit() throws {
        let text = try String(contentsOf: Self.unit, encoding: .utf8)
        try #require(text.contains(Self.installedBinary))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("diary-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("diary-server.service")
        try text.replacingOccurrences(of: Self.installedBinary, with: Binaries.server.path).write(to: copy, atomically: true, encoding: .utf8)
        let result = try run(Self.analyze, ["verify", copy.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty && result.stdout.isEmpty, "\(result.stdout)\(result.stderr)")
    }

    /// Every `--option` of the unit's `ExecStart` is in `diary-server serve --help`.
    @Test func theUnitsOptionsAreTheServers() throws {
        let text = try String(contentsOf: Self.unit, encoding: .utf8)
        let joined = text.replacingOccurrences(of: "\\\n", with: " ")
        let execStart = try #require(joined.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let options = execStart.split(separator: " ").filter { $0.hasPrefix("--") }.map(String.init)
        #expect(options.count >= 5, "\(execStart)")
        let help = try run(Binaries.server, ["serve", "--help"])
        #expect(help.status == 0)
        for option in options {
            #expect(help.stdout.contains(option + " "), "\(option) is not an option of diary-server serve")
        }
    }
}
