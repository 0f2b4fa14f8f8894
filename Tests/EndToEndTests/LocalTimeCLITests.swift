import DiaryAPI
import Foundation
import Testing

/// Dates on the command line are local (`TZ`), `--utc` shows UTC, and JSON stays as sent.
@Suite(.serialized) struct LocalTimeCLITests {
    @Test func tokyoIsNineHoursAheadOfUTC() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice")
        let tokyo = ["TZ": "Asia/Tokyo"]
        // A plain date is that day in the local zone: midnight in Tokyo is 15:00 UTC the day before.
        let added = try server.diary(["add", "Autumn", "--body", "", "--date", "2026-11-01"], token: alice, environment: tokyo)
        #expect(added.status == 0, "\(added.stderr)")
        let entry = try JSONDecoder.diary.decode(Entry.self, from: Data(try server.diary(["show", "1", "--json"]).stdout.utf8))
        #expect(entry.created == RFC3339.date(from: "2026-10-31T15:00:00Z"))

        let local = try server.diary(["list"], environment: tokyo)
        let utc = try server.diary(["list", "--utc"], environment: tokyo)
        #expect(local.stdout.contains("2026-11-01 00:00  Autumn"), "\(local.stdout)")
        #expect(utc.stdout.contains("2026-10-31 15:00  Autumn"), "\(utc.stdout)")
        #expect(try server.diary(["show", "1"], environment: tokyo).stdout.contains("alice · 2026-11-01 00:00"))
        #expect(try server.diary(["show", "1", "--utc"], environment: tokyo).stdout.contains("alice · 2026-10-31 15:00"))
        #expect(try server.diary(["show", "1", "--json"], environment: tokyo).stdout.contains(#""created":"2026-10-31T15:00:00Z""#))

        // --since and --until as a day mean that local day.
        #expect(try server.diary(["list", "--since", "2026-11-01", "--until", "2026-11-01"], environment: tokyo).stdout.contains("Autumn"))
        #expect(!(try server.diary(["list", "--since", "2026-11-01"], environment: ["TZ": "UTC"]).stdout.contains("Autumn")))
    }
}
