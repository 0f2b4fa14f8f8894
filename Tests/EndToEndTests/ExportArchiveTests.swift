import DiaryAPI
import Foundation
import StoreTestSupport
import Testing

/// `diary export --format archive|markdown` and `diary import` of an archive, through the real
/// binaries on the engine the suite runs on: the images travel with the entries, only those
/// the exporter may see, and an archive comes back whole into a fresh server, once.
@Suite(.serialized) struct ExportArchiveTests {
    /// alice's diary: a public entry showing a PNG, a private one showing a JPEG, a JPEG no
    /// entry shows, and an entry linking to bob's private image, which alice may not see.
    static func diaryWithImages(_ server: ServerProcess, in directory: URL) throws -> (alice: String, bobImage: String) {
        let alice = try server.addUser("alice"), bob = try server.addUser("bob")
        let png = directory.appendingPathComponent("eikan-do.png"), jpeg = directory.appendingPathComponent("tea.jpg")
        try Data(TestImages.png).write(to: png)
        try Data(TestImages.jpeg).write(to: jpeg)
        let bobImage = try attach(png, server: server, token: bob)
        #expect(try server.diary(["add", "Autumn", "--body", "Leaves.", "--image", png.path], token: alice).status == 0)
        #expect(try server.diary(["add", "Tea", "--body", "Matcha.", "--image", jpeg.path, "--private"], token: alice).status == 0)
        _ = try attach(jpeg, server: server, token: alice)
        #expect(try server.diary(["add", "Borrowed", "--body", "![bob's](\(bobImage))"], token: alice).status == 0)
        return (alice, bobImage)
    }

    /// Uploads `file`; its URL.
    static func attach(_ file: URL, server: ServerProcess, token: String) throws -> String {
        let attached = try server.diary(["attach", file.path], token: token)
        try #require(attached.status == 0, "\(attached.stderr)")
        return String(try #require(attached.stdout.firstMatch(of: /\((\/media\/[0-9a-f]{32})\)/)?.1))
    }

    /// The members of a zip, by name, as Python's zipfile reads them: a reader that is not the one that wrote it.
    static func members(of archive: URL, into directory: URL) throws -> [String: Data] {
        let unpacked = try run(URL(fileURLWithPath: "/usr/bin/python3"), ["-m", "zipfile", "-e", archive.path, directory.path])
        try #require(unpacked.status == 0, "\(unpacked.stderr)")
        var members: [String: Data] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
            var isDirectory: ObjCBool = false
            let file = directory.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                members[name] = try Data(contentsOf: file)
            }
        }
        return members
    }

    static func entries(_ ndjson: Data?) throws -> [Entry] {
        try String(decoding: try #require(ndjson), as: UTF8.self).split(separator: "\n").map {
            try DiaryJSON.makeDecoder().decode(Entry.self, from: Data($0.utf8))
        }
    }

    @Test func anArchiveCarriesWhatTheExporterMaySeeAndComesBackOnce() throws {
        let server = try ServerProcess()
        try withTemporaryDirectory { directory in
            let (alice, bobImage) = try Self.diaryWithImages(server, in: directory.url)
            let archive = directory.url.appendingPathComponent("diary.zip")
            let exported = try server.diary(["export", "--format", "archive", "--output", archive.path], token: alice)
            #expect(exported.status == 0 && exported.stdout.contains("3 entries and 3 images"), "\(exported.stdout)\(exported.stderr)")

            // entries.ndjson is the server's NDJSON export as sent; each image the bytes it serves to alice.
            let members = try Self.members(of: archive, into: directory.url.appendingPathComponent("a"))
            #expect(members["entries.ndjson"] == Data(try server.diary(["export"], token: alice).stdout.utf8))
            let images = members.keys.filter { $0.hasPrefix("media/") }
            #expect(images.count == 3 && !images.contains { $0.contains(bobImage.dropFirst("/media/".count)) }, "\(images)")
            for path in images {
                let id = path.dropFirst("media/".count).prefix(32)
                let served = try server.raw("GET", "/media/\(id)", headers: [("Authorization", "Bearer \(alice)")])
                #expect(Data(served.body) == members[path], "\(path)")
                #expect(path.hasSuffix(served.header("Content-Type") == "image/png" ? ".png" : ".jpg"), "\(path)")
            }

            // Into a fresh server: every entry and image; a second import changes nothing.
            let fresh = try ServerProcess()
            let aliceThere = try fresh.addUser("alice")
            let first = try fresh.diary(["import", archive.path], token: aliceThere)
            #expect(first.status == 0 && first.stdout.contains("3 created, 0 skipped, 3 images uploaded"), "\(first.stdout)\(first.stderr)")
            let media = try fresh.raw("GET", "/api/media", headers: [("Authorization", "Bearer \(aliceThere)")]).body
            let second = try fresh.diary(["import", archive.path], token: aliceThere)
            #expect(second.status == 0 && second.stdout.contains("0 created, 3 skipped"), "\(second.stdout)\(second.stderr)")
            #expect(try fresh.raw("GET", "/api/media", headers: [("Authorization", "Bearer \(aliceThere)")]).body == media)

            // Exported again: the same entries, their links to the images' new ids; the same images, byte for byte.
            let again = directory.url.appendingPathComponent("again.zip")
            #expect(try fresh.diary(["export", "--format", "archive", "--output", again.path], token: aliceThere).status == 0)
            let returned = try Self.members(of: again, into: directory.url.appendingPathComponent("b"))
            try Self.expectSameArchives(members, returned, bobImage: bobImage)
        }
    }

    /// `original` and `returned` hold the same entries and images, but for the images' ids.
    static func expectSameArchives(_ original: [String: Data], _ returned: [String: Data], bobImage: String) throws {
        let before = try entries(original["entries.ndjson"]), after = try entries(returned["entries.ndjson"])
        try #require(before.count == after.count)
        var newIDs: [MediaID: MediaID] = [:]
        for (old, new) in zip(before, after) {
            for (oldID, newID) in zip(MediaLinks.ids(in: old.body), MediaLinks.ids(in: new.body)) where oldID.url != bobImage {
                newIDs[oldID] = newID
            }
            var relinked = old
            relinked.body = MediaLinks.replacing(in: old.body) { newIDs[$0]?.url }
            #expect(relinked == new)
        }
        #expect(after.last?.body == "![bob's](\(bobImage))", "a link to an image not exported stays as it was")
        #expect(newIDs.count == 2 && returned.count == original.count)
        for (path, bytes) in original where path.hasPrefix("media/") {
            let oldID = try #require(MediaID(path.dropFirst("media/".count).prefix(32)))
            // The image no entry shows has no link to follow: it is the one left.
            let linkedPaths = Set(newIDs.values.compactMap { id in returned.keys.first { $0.contains(id.text) } })
            let returnedPath = newIDs[oldID].flatMap { id in returned.keys.first { $0.contains(id.text) } }
                ?? returned.keys.first { $0.hasPrefix("media/") && !linkedPaths.contains($0) }
            #expect(returnedPath.flatMap { returned[$0] } == bytes, "\(path)")
        }
    }

    @Test func markdownFilesHaveTheirImagesBesideThemLinkedRelatively() throws {
        let server = try ServerProcess()
        try withTemporaryDirectory { directory in
            let (alice, bobImage) = try Self.diaryWithImages(server, in: directory.url)
            let output = directory.url.appendingPathComponent("md")
            let exported = try server.diary(["export", "--format", "markdown", "--output", output.path], token: alice)
            #expect(exported.status == 0 && exported.stdout.contains("3 entries and 2 images"), "\(exported.stdout)\(exported.stderr)")
            for number in [1, 2] {
                let text = try String(contentsOf: output.appendingPathComponent("\(number).md"), encoding: .utf8)
                let path = String(try #require(text.firstMatch(of: /\]\((media\/[0-9a-f]{32}\.(png|jpg))\)/)?.1, "\(text)"))
                let served = try server.raw("GET", "/" + path.prefix("media/".count + 32), headers: [("Authorization", "Bearer \(alice)")])
                #expect(try Data(contentsOf: output.appendingPathComponent(path)) == Data(served.body))
            }
            let borrowed = try String(contentsOf: output.appendingPathComponent("3.md"), encoding: .utf8)
            #expect(borrowed.contains("![bob's](\(bobImage))"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("media").path).count == 2)
        }
    }
}
