import DiaryAPI
import DiaryTerminal
import Foundation
import Testing

@Suite struct DisplayStyleTests {
    let tokyo = DisplayStyle(timeZone: TimeZone(identifier: "Asia/Tokyo")!, color: false)
    let instant = RFC3339.date(from: "2026-11-22T04:30:00Z")!

    @Test func datesAreShownInTheStylesZone() {
        #expect(DisplayStyle.plain.date(instant) == "2026-11-22 04:30")
        #expect(tokyo.date(instant) == "2026-11-22 13:30")
        let entry = Entry(id: 1, diaryID: 1, author: "alice", title: "t", body: "", created: instant, updated: instant)
        #expect(DisplayFormat.entryRows([entry], style: tokyo) == ["1  2026-11-22 13:30  t"])
        #expect(DisplayFormat.entryDetail(entry, style: tokyo).contains("alice · 2026-11-22 13:30"))
    }

    @Test func aPlainDateIsThatDayInTheZone() throws {
        let day = try #require(tokyo.day("2026-11-01"))
        #expect(day.start == RFC3339.date(from: "2026-10-31T15:00:00Z"))
        #expect(day.end == RFC3339.date(from: "2026-11-01T14:59:59Z"))
        #expect(DisplayStyle.plain.day("2026-11-01")?.start == RFC3339.date(from: "2026-11-01T00:00:00Z"))
        for text in ["2026-02-30", "2026-1-01", "yesterday", "2026-11-01T00:00:00Z"] {
            #expect(tokyo.day(text) == nil, "\(text)")
        }
    }

    @Test func colourOnlyOnATerminalAndNeverWithNoColor() {
        #expect(DisplayStyle.resolve(utc: false, noColor: false, outputIsTerminal: true, environment: [:]).color)
        #expect(!DisplayStyle.resolve(utc: false, noColor: false, outputIsTerminal: false, environment: [:]).color)
        #expect(!DisplayStyle.resolve(utc: false, noColor: true, outputIsTerminal: true, environment: [:]).color)
        #expect(!DisplayStyle.resolve(utc: false, noColor: false, outputIsTerminal: true, environment: ["NO_COLOR": "1"]).color)
        #expect(DisplayStyle.resolve(utc: false, noColor: false, outputIsTerminal: true, environment: ["NO_COLOR": ""]).color)
        #expect(DisplayStyle.resolve(utc: true, noColor: false, outputIsTerminal: false, environment: [:]).timeZone.secondsFromGMT() == 0)
    }
}
