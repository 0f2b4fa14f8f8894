import DiaryAPI
import DiaryReplica
import DiarySQLiteStore
import DiaryStore
import Foundation
import GRDB
import Testing

/// `diary sync` with the real binaries: what the replica holds, its file's modes, deletions
/// and changes to private reaching it, and a sync killed half-way then run again.
@Suite(.serialized) struct ReplicaSyncTests {
    /// A data folder of its own for one client, removed with the test.
    final class DataHome {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("diary-replica-\(UUID().uuidString)")
        var environment: [String: String] { ["XDG_DATA_HOME": url.path] }
        var folder: URL { url.appendingPathComponent("diary") }

        /// The replica file of `server` as `token` reads it (nil: the public one).
        func file(of server: ServerProcess, token: String?) -> URL {
            ReplicaLocation(server: URL(string: server.url)!, token: token, environment: environment).file
        }

        deinit { try? FileManager.default.removeItem(at: url) }
    }

    /// Every entry a replica holds, as the token's user it was synced for reads it, by id.
    static func held(_ file: URL) throws -> [Entry] {
        let store = try SQLiteDiaryStore(path: file.path)
        defer { try? store.close() }
        let viewer = try store.replicaState().ownerID
        let own = try viewer.map { try store.entries(afterID: nil, limit: 100_000, ownerID: $0) } ?? []
        let others = try store.entries(afterID: nil, limit: 100_000, ownerID: nil).filter { entry in !own.contains { $0.id == entry.id } }
        return (own + others).sorted { $0.id < $1.id }
    }

    /// What the server's export gives the same reader, by id (with a token: their own, plus every public entry).
    static func exported(_ server: ServerProcess, token: String?) throws -> [Entry] {
        func export(_ token: String?) throws -> [Entry] {
            let answer = try server.diary(["export", "--format", "ndjson"], token: token)
            try #require(answer.status == 0, "\(answer.stderr)")
            return try answer.stdout.split(separator: "\n").map { try JSONDecoder.diary.decode(Entry.self, from: Data($0.utf8)) }
        }
        let own = try token.map(export) ?? []
        let others = try export(nil).filter { entry in !own.contains { $0.id == entry.id } }
        return (own + others).sorted { $0.id < $1.id }
    }

    @Test func aSyncedReplicaHoldsWhatTheReaderMayReadAndFollowsDeletionsAndPrivacy() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice"), bob = try server.addUser("bob")
        for (title, extra) in [("kyoto", [String]()), ("secret", ["--private"]), ("unlisted", ["--visibility", "unlisted"]), ("goes", [])] {
            #expect(try server.diary(["add", title, "--body", "紅葉 \(title)"] + extra, token: alice).status == 0)
        }
        #expect(try server.diary(["add", "bob's", "--body", "b"], token: bob).status == 0)
        let aliceHome = DataHome(), bobHome = DataHome()
        let synced = try server.diary(["sync"], token: alice, environment: aliceHome.environment)
        #expect(synced.status == 0 && synced.stdout.contains("synced 5 changes"), "\(synced.stderr)")
        #expect(try server.diary(["sync"], token: bob, environment: bobHome.environment).status == 0)

        let aliceFile = aliceHome.file(of: server, token: alice)
        #expect(try Self.held(aliceFile) == Self.exported(server, token: alice))
        #expect(try Self.held(bobHome.file(of: server, token: bob)) == Self.exported(server, token: bob))
        #expect(try Self.held(bobHome.file(of: server, token: bob)).map(\.title) == ["kyoto", "goes", "bob's"])
        let folderMode = try FileManager.default.attributesOfItem(atPath: aliceHome.folder.path)[.posixPermissions] as? Int
        let fileMode = try FileManager.default.attributesOfItem(atPath: aliceFile.path)[.posixPermissions] as? Int
        #expect(folderMode == 0o700 && fileMode == 0o600)

        // A deletion and a change to private reach both replicas.
        #expect(try server.diary(["delete", "4"], token: alice).status == 0)
        #expect(try server.diary(["edit", "1", "--visibility", "private"], token: alice).status == 0)
        #expect(try server.diary(["sync"], token: alice, environment: aliceHome.environment).status == 0)
        #expect(try server.diary(["sync"], token: bob, environment: bobHome.environment).status == 0)
        #expect(try Self.held(aliceFile) == Self.exported(server, token: alice))
        #expect(try Self.held(aliceFile).map(\.title) == ["kyoto", "secret", "unlisted", "bob's"])
        #expect(try Self.held(bobHome.file(of: server, token: bob)).map(\.title) == ["bob's"])

        // Without the token: the public part only, in a file of its own.
        #expect(try server.diary(["sync"], environment: aliceHome.environment).status == 0)
        #expect(try Self.held(aliceHome.file(of: server, token: nil)).map(\.title) == ["bob's"])
    }

    /// A server on a seeded database of `entries` public entries, and its file to remove.
    static func seededServer(entries: Int) throws -> (ServerProcess, URL) {
        let seeded = FileManager.default.temporaryDirectory.appendingPathComponent("diary-seed-\(UUID().uuidString).sqlite3")
        let seed = try run(Binaries.server, ["seed", "--entries", String(entries), "--database", seeded.path], seconds: 600)
        try #require(seed.status == 0, "\(seed.stderr)")
        return (try ServerProcess(database: seeded.path), seeded)
    }

    static func remove(_ database: URL) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
    }

    /// `diary sync` started in the background, and (polled, never slept for) once its first
    /// page is in the replica.
    static func startSync(_ server: ServerProcess, _ home: DataHome, token: String?) throws -> Process {
        let process = Process()
        process.executableURL = Binaries.client
        process.arguments = ["sync"]
        var environment = home.environment
        environment["DIARY_SERVER"] = server.url
        environment["DIARY_TOKEN"] = token
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.standardError
        try process.run()
        let file = home.file(of: server, token: token)
        let deadline = ContinuousClock.now + .seconds(120)
        var cursor: String?
        // Read through a read-only connection, which takes no lock the sync waits for (opening
        // the store would migrate and take the write lock, and could outlast the whole sync).
        var configuration = Configuration()
        configuration.readonly = true
        while cursor == nil && process.isRunning && ContinuousClock.now < deadline {
            guard FileManager.default.fileExists(atPath: file.path),
                let reader = try? DatabaseQueue(path: file.path, configuration: configuration) else { continue }
            cursor = try? reader.read { db in
                try Data.fetchOne(db, sql: "SELECT value FROM settings WHERE name = 'replica_cursor'").map { String(decoding: $0, as: UTF8.self) }
            }
            try? reader.close()
        }
        #expect(cursor != nil, "the first page was never applied")
        return process
    }

    @Test func aSyncKilledHalfWayThenRunAgainEqualsAnUninterruptedOne() throws {
        let (server, seeded) = try Self.seededServer(entries: 4000)
        defer { Self.remove(seeded) }
        let cut = DataHome(), whole = DataHome()

        // Killed once the first page is in (each page is its own transaction).
        let process = try Self.startSync(server, cut, token: nil)
        let file = cut.file(of: server, token: nil)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let partial = try Self.held(file).count
        #expect(partial > 0 && partial < 4000, "killed after \(partial) entries")

        #expect(try server.diary(["sync"], environment: cut.environment).status == 0)
        #expect(try server.diary(["sync"], environment: whole.environment).status == 0)
        let resumed = try Self.held(file)
        #expect(resumed.count == 4000)
        #expect(resumed == (try Self.held(whole.file(of: server, token: nil))))
    }

    /// Offline search finds what the server finds, for terms of each length the replica's indexes
    /// answer (one or two characters: `entries_grams`; three and more: the trigram indexes),
    /// after a first sync (where the token's public entries come twice, once in each of its
    /// sequences) and after edits, a change to private and back, and a deletion.
    @Test func offlineSearchFindsWhatTheServerFinds() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice"), bob = try server.addUser("bob")
        let added: [(String, String, [String])] = [
            ("Kyoto leaves", "京都で紅葉を見た。 Maple tea", []), ("Plans", "secret plans for the river walk", ["--private"]),
            ("Walk", "by the river, ZZ top", []), ("紅茶", "tea at noon", ["--visibility", "unlisted"]), ("Gone", "maple syrup", []),
        ]
        for (title, body, extra) in added {
            #expect(try server.diary(["add", title, "--body", body] + extra, token: alice).status == 0)
        }
        #expect(try server.diary(["add", "bob's walk", "--body", "river tea 京都"], token: bob).status == 0)
        let home = DataHome()
        var environment = home.environment
        environment["TZ"] = "UTC"
        func expectTheServersResults() throws {
            #expect(try server.diary(["sync"], token: alice, environment: environment).status == 0)
            for term in ["紅", "紅葉", "京都", "zz", "t", "tea", "river walk", "maple", "plans", "\"the river\"", "kyo*"] {
                let arguments = ["search", term, "--order", "newest", "--per-page", "100"]
                let online = try server.diary(arguments, token: alice, environment: environment)
                let offline = try server.diary(arguments + ["--offline"], token: alice, environment: environment)
                #expect(online.status == 0 && offline.status == 0 && offline.stdout == online.stdout, "\(term): \(offline.stderr)")
            }
        }
        try expectTheServersResults()
        #expect(try server.diary(["edit", "1", "--body", "京都 without leaves"], token: alice).status == 0)
        #expect(try server.diary(["edit", "2", "--title", "Plans, done"], token: alice).status == 0)
        #expect(try server.diary(["edit", "3", "--visibility", "private"], token: alice).status == 0)
        #expect(try server.diary(["delete", "5"], token: alice).status == 0)
        try expectTheServersResults()
        #expect(try server.diary(["edit", "3", "--visibility", "public"], token: alice).status == 0)
        #expect(try server.diary(["edit", "6", "--body", "zz 紅葉"], token: bob).status == 0)
        try expectTheServersResults()
    }

    /// Sync, stop the server, then list, show, search (English and Japanese) and tags answer
    /// from the replica with one line on stderr; `--offline` forces it while the server is up,
    /// and `DIARY_OFFLINE=never` keeps the connection error.
    @Test func readsAnswerFromTheReplicaWhenTheServerIsAway() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice")
        #expect(try server.diary(["add", "Kyoto leaves", "--body", "京都で紅葉を見た", "--tag", "travel"], token: alice).status == 0)
        #expect(try server.diary(["add", "Plans", "--body", "secret plans", "--private"], token: alice).status == 0)
        let home = DataHome()
        var environment = home.environment
        environment["TZ"] = "UTC"
        #expect(try server.diary(["sync"], token: alice, environment: environment).status == 0)
        let online = try server.diary(["list"], token: alice, environment: environment)
        let forced = try server.diary(["list", "--offline"], token: alice, environment: environment)
        #expect(forced.status == 0 && forced.stdout == online.stdout, "\(forced.stderr)")
        #expect(forced.stderr.hasPrefix("offline: showing what was synced ") && forced.stderr.hasSuffix("(just now)\n"))
        server.stop()

        let list = try server.diary(["list"], token: alice, environment: environment)
        #expect(list.status == 0 && list.stdout == online.stdout, "\(list.stderr)")
        #expect(list.stderr.split(separator: "\n").count == 1 && list.stderr.hasPrefix("offline: showing what was synced"))
        let search = try server.diary(["search", "紅葉"], token: alice, environment: environment)
        #expect(search.status == 0 && search.stdout.contains("Kyoto leaves") && !search.stdout.contains("Plans"), "\(search.stderr)")
        #expect(try server.diary(["search", "plans"], token: alice, environment: environment).stdout.contains("Plans"))
        let show = try server.diary(["show", "2"], token: alice, environment: environment)
        #expect(show.status == 0 && show.stdout.hasPrefix("Plans") && show.stdout.contains("secret plans"))
        #expect(try server.diary(["tags"], token: alice, environment: environment).stdout.contains("travel"))

        // Without the token: the public copy, which was never synced.
        let anonymous = try server.diary(["list"], environment: environment)
        #expect(anonymous.status == 1 && anonymous.stderr.contains("cannot reach") && anonymous.stderr.contains("diary sync"), "\(anonymous.stderr)")
        environment["DIARY_OFFLINE"] = "never"
        let never = try server.diary(["list"], token: alice, environment: environment)
        #expect(never.status == 1 && never.stderr.contains("cannot reach") && !never.stderr.contains("offline:"), "\(never.stderr)")
    }

    /// `diary status` reads the copy; a damaged copy is one line suggesting `diary sync --reset`,
    /// which makes it whole again.
    @Test func statusAndADamagedCopy() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice")
        #expect(try server.diary(["add", "one", "--body", "x"], token: alice).status == 0)
        let home = DataHome()
        let before = try server.diary(["status"], token: alice, environment: home.environment)
        #expect(before.status == 0 && before.stdout.contains("last sync: never"), "\(before.stdout)")
        #expect(try server.diary(["sync"], token: alice, environment: home.environment).status == 0)
        let status = try server.diary(["status"], token: alice, environment: home.environment)
        #expect(status.stdout.contains("server: \(server.url)") && status.stdout.contains("entries held: 1"), "\(status.stdout)")
        #expect(status.stdout.contains("(just now)") && status.stdout.contains("changes not sent: 0"))

        // The copy is its file and its write-ahead log, which the replica keeps between runs:
        // both damaged, or SQLite would still read every page the log holds.
        let file = home.file(of: server, token: alice)
        #expect(FileManager.default.fileExists(atPath: file.path + "-wal"))
        for path in [file.path, file.path + "-wal"] {
            try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        }
        for arguments in [["list", "--offline"], ["sync"]] {
            let damaged = try server.diary(arguments, token: alice, environment: home.environment)
            #expect(damaged.status == 1, "\(arguments)")
            #expect(damaged.stderr.split(separator: "\n").count == 1 && damaged.stderr.contains("diary sync --reset"), "\(damaged.stderr)")
        }
        let reset = try server.diary(["sync", "--reset"], token: alice, environment: home.environment)
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(try Self.held(file).map(\.title) == ["one"])
    }

    /// Written offline: kept in the outbox and shown `[not sent]`; the server back on the same
    /// port, `diary sync` sends them in order and another client reads them. An edit of an
    /// entry changed meanwhile from a second replica is a conflict: the server's text stays,
    /// the local one becomes a private entry, one line names both, and sync exits non-zero.
    @Test func offlineWritesAreSentBySyncAndAConflictLosesNothing() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice")
        #expect(try server.diary(["add", "shared", "--body", "original"], token: alice).status == 0)
        #expect(try server.diary(["add", "other", "--body", "x"], token: alice).status == 0)
        let laptop = DataHome(), phone = DataHome()
        for home in [laptop, phone] { #expect(try server.diary(["sync"], token: alice, environment: home.environment).status == 0) }
        // The phone edits entry 1 while the server is up.
        #expect(try server.diary(["edit", "1", "--body", "from the phone"], token: alice, environment: phone.environment).status == 0)
        let port = server.port
        server.stop()

        for arguments in [["add", "train", "--body", "written offline"], ["edit", "1", "--body", "from the laptop"], ["edit", "2", "--title", "other, renamed"]] {
            let written = try server.diary(arguments, token: alice, environment: laptop.environment)
            #expect(written.status == 0 && written.stdout.contains("[not sent]"), "\(arguments): \(written.stderr)")
        }
        let pending = try server.diary(["list"], token: alice, environment: laptop.environment)
        #expect(pending.stdout.split(separator: "\n").filter { $0.contains("[not sent]") }.count == 3, "\(pending.stdout)")
        #expect(try server.diary(["status"], token: alice, environment: laptop.environment).stdout.contains("changes not sent: 3"))
        // A reset would lose them: refused where nobody can answer the question.
        let reset = try server.diary(["sync", "--reset"], token: alice, environment: laptop.environment)
        #expect(reset.status == 1 && reset.stderr.contains("3 changes written offline are not sent yet"), "\(reset.stderr)")
        #expect(try server.diary(["status"], token: alice, environment: laptop.environment).stdout.contains("changes not sent: 3"))

        try server.start(extraArguments: ["--port", String(port)])
        let synced = try server.diary(["sync"], token: alice, environment: laptop.environment)
        #expect(synced.status == 1)
        let conflicts = synced.stderr.split(separator: "\n")
        #expect(conflicts.count == 1 && conflicts[0].hasPrefix("conflict: entry 1 changed on the server; your text is kept as private entry "), "\(synced.stderr)")
        let copyID = try #require(conflicts.first.flatMap { Int64($0.split(separator: " ").last ?? "") })

        // Another client, straight from the server: both texts, and the offline writes.
        #expect(try server.diary(["show", "1"], token: alice).stdout.contains("from the phone"))
        let copy = try JSONDecoder.diary.decode(Entry.self, from: Data(try server.diary(["show", String(copyID), "--json"], token: alice).stdout.utf8))
        #expect(copy.body == "from the laptop" && copy.visibility == .private && copy.title.hasPrefix("shared (conflict, "))
        let titles = try Self.exported(server, token: alice).map(\.title)
        #expect(titles.contains("train") && titles.contains("other, renamed") && titles.count == 4, "\(titles)")
        // The laptop's copy is the server's now, with nothing left to send; a second sync sends nothing twice.
        #expect(try Self.held(laptop.file(of: server, token: alice)) == Self.exported(server, token: alice))
        #expect(try server.diary(["status"], token: alice, environment: laptop.environment).stdout.contains("changes not sent: 0"))
        #expect(try server.diary(["sync"], token: alice, environment: laptop.environment).status == 0)
        #expect(try Self.exported(server, token: alice).count == 4)
    }

    /// A sync running while `diary add --offline` writes to the same replica: they wait for
    /// each other (SQLite's lock: the replica waits up to `Replica.lockWait` for a page, whose
    /// transaction takes milliseconds idle and seconds on a loaded machine),
    /// both finish, and the replica holds everything.
    @Test func aSyncAndAnOfflineAddAtOnce() throws {
        let (server, seeded) = try Self.seededServer(entries: 3000)
        defer { Self.remove(seeded) }
        // Her own changes come first: her diary is in the replica from the first page.
        let token = try server.addUser("alice")
        #expect(try server.diary(["add", "mine", "--body", "x"], token: token).status == 0)
        let home = DataHome()
        let sync = try Self.startSync(server, home, token: token)
        var added = 0
        while sync.isRunning || added == 0 {
            let add = try server.diary(["add", "offline \(added)", "--body", "y", "--offline"], token: token, environment: home.environment)
            #expect(add.status == 0, "\(add.stderr)")
            added += 1
        }
        sync.waitUntilExit()
        #expect(sync.terminationStatus == 0, "the sync failed")
        let store = try SQLiteDiaryStore(path: home.file(of: server, token: token).path)
        defer { try? store.close() }
        #expect(try store.integrityCheck() == "ok")
        #expect(try store.outbox().count == added)
        #expect(try store.replicaEntryCount() == 3001 + added)
    }
}
