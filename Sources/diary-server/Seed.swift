import ArgumentParser
import DiaryAPI
import APITokens
import DiaryPostgresStore
import DiarySQLiteStore
import DiaryStore
import Foundation
import SeededRandom

/// `diary-server seed`: fills a new database (an SQLite file or a PostgreSQL database) with users,
/// diaries and entries through the store (not HTTP), for `scripts/bench` and `scripts/cluster`.
/// Hidden from help: it is a tool, not part of the service.
struct Seed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Fill a new database with generated users, diaries and entries; prints 'NAME TOKEN' per user.",
        shouldDisplay: false
    )

    @Option(help: "Entries to write, about 1 KB of body each.")
    var entries = 10_000

    @Option(help: "Users, named bench-1, bench-2, …")
    var users = 3

    @Option(help: "Diaries per user.")
    var diariesPerUser = 2

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard entries >= 0, (1...1000).contains(users), (1...100).contains(diariesPerUser) else {
            throw ValidationError("--entries must be 0 or more, --users 1 to 1000, --diaries-per-user 1 to 100.")
        }
    }

    func run() throws {
        do {
            // A bulk write, not a request: a batch may take longer than a request's time limit
            // (2,000 entries took over 4.5 s on a loaded machine, and PostgreSQL stopped them).
            let store = try database.openStore(timeout: PostgresDiaryStore.maintenanceTimeout)
            guard try store.diaries(viewerID: nil).isEmpty else {
                throw ValidationError("seed writes into a new database only; \(database.displayName) has diaries.")
            }
            var diaryIDs: [Int64] = []
            for number in 1...users {
                let token = APIToken.generate()
                let user = try store.createUser(name: "bench-\(number)", tokenHash: TokenHash(token: token))
                diaryIDs += try store.diaries(viewerID: nil).filter { $0.owner == user.name }.map(\.id)
                for extra in 1..<diariesPerUser {
                    diaryIDs.append(try store.createDiary(ownerID: user.id, title: "\(user.name)'s diary \(extra + 1)").id)
                }
                print(user.name, token)
            }
            // The same entries on either engine; each store's own batched writer, since
            // createEntry's per-entry lookups would take minutes for 100,000 entries.
            let seeded = SeedText.entries(count: entries, diaryIDs: diaryIDs)
            switch store {
            case let sqlite as SQLiteDiaryStore:
                try sqlite.insertEntries(seeded)
                try sqlite.close()
            case let postgres as PostgresDiaryStore:
                try postgres.insertEntries(seeded)
                postgres.close()
            default:
                throw ValidationError("seed knows no batched writer for \(type(of: store)).")
            }
        } catch let error as StoreError {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// Deterministic diary-like text: the same arguments give the same entries, byte for byte.
enum SeedText {
    static let words = ZipfDistribution(count: SeedVocabulary.words.count)
    static let japaneseWords = ZipfDistribution(count: SeedVocabulary.japanese.count)
    static let tags = ZipfDistribution(count: SeedVocabulary.tags.count)

    /// Entries 10 minutes apart from 2020-01-01, spread round-robin over the diaries.
    static func entries(count: Int, diaryIDs: [Int64]) -> some Sequence<SeedEntry> {
        let start = RFC3339.date(from: "2020-01-01T00:00:00Z")!
        var random = SplitMix64(seed: 42)
        return (0..<count).lazy.map { index in
            SeedEntry(
                diaryID: diaryIDs[index % diaryIDs.count],
                title: "Day \(index + 1): \(random.words(3))",
                body: random.body(bytes: 1000),
                created: start + TimeInterval(index * 600),
                tags: random.tags())
        }
    }

    /// Sentences that JSON must escape or that are not ASCII, so encoders do real work.
    static let specials = [
        "She said \"see you tomorrow\" and left.", "The path was C:\\diary\\2020.", "今日は雨でした。",
        "Tabs\tand a slash / stay.", "Café au lait, naïve résumé.",
    ]
}

/// Seed text drawn from a fixed-seed generator, so seeded databases are reproducible.
extension SplitMix64 {
    mutating func words(_ count: Int) -> String {
        (0..<count).map { _ in SeedVocabulary.words[SeedText.words.rank(using: &self)] }.joined(separator: " ")
    }

    /// Japanese words joined by particles, with a verb ending: 京都で紅葉を見ました。
    mutating func japaneseSentence() -> String {
        var sentence = ""
        for position in 0..<(2 + next(3)) {
            if position > 0 { sentence += SeedVocabulary.particles[next(SeedVocabulary.particles.count)] }
            sentence += SeedVocabulary.japanese[SeedText.japaneseWords.rank(using: &self)]
        }
        return sentence + SeedVocabulary.endings[next(SeedVocabulary.endings.count)]
    }

    /// Sentences of 5 to 12 words, a Japanese one or a special one now and then, a paragraph
    /// break now and then, until about `bytes` UTF-8 bytes.
    mutating func body(bytes: Int) -> String {
        var text = ""
        while text.utf8.count < bytes {
            if !text.isEmpty { text += next(5) == 0 ? "\n\n" : " " }
            switch next(6) {
            case 0: text += SeedText.specials[next(SeedText.specials.count)]
            case 1: text += japaneseSentence()
            default:
                let sentence = words(5 + next(8))
                text += sentence.prefix(1).uppercased() + sentence.dropFirst() + "."
            }
        }
        return text
    }

    /// Up to three distinct tags, the common ones most often.
    mutating func tags() -> [String] {
        var tags: [String] = []
        for _ in 0..<next(4) {
            let tag = SeedVocabulary.tags[SeedText.tags.rank(using: &self)]
            if !tags.contains(tag) { tags.append(tag) }
        }
        return tags
    }
}
