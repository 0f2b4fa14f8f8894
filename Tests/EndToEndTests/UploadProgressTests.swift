import Foundation
import StoreTestSupport
import Testing

/// The bar `diary attach` draws on a terminal while a large file goes to a real server, and
/// its absence from a pipe.
@Suite(.serialized) struct UploadProgressTests {
    /// A PNG of `side` × `side` pixels of noise, which does not compress: about 3 bytes a pixel.
    static func noisePNG(side: Int, to file: URL) throws {
        let script = """
            import os, struct, sys, zlib
            side = int(sys.argv[2])
            def chunk(kind, data):
                return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
            rows = b"".join(b"\\0" + os.urandom(side * 3) for _ in range(side))
            png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
            png += chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b"")
            open(sys.argv[1], "wb").write(png)
            """
        let made = try run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, file.path, "\(side)"])
        try #require(made.status == 0, "\(made.stderr)")
    }

    @Test func aLargeUploadShowsItsBytesOnATerminalThenErasesThem() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice")
        try withTemporaryDirectory { directory in
            let photo = directory.url.appendingPathComponent("noise.png")
            try Self.noisePNG(side: 1200, to: photo)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: photo.path)[.size] as? Int)
            try #require(size > 4_000_000)

            // Recorded from before the upload starts.
            let client = "\(Binaries.client.path) --server \(server.url) --token \(alice)"
            let log = directory.url.appendingPathComponent("pane.log")
            let tmux = try Tmux.recording("\(client) attach \(photo.path); echo \"EXIT $?\"; sleep 600", to: log, columns: 100, rows: 10)
            let screen = try tmux.waitFor("the upload's end") { $0.contains("EXIT ") }
            #expect(screen.contains("EXIT 0") && screen.contains("![noise](/media/"), "\(screen)")
            #expect(!screen.contains("noise.png ["), "the bar is erased: \(screen)")

            // What was drawn: the bar redrawn in place (a carriage return each time), growing
            // to the whole file, then erased before the Markdown line was printed.
            let drawn = try String(contentsOf: log, encoding: .utf8)
            let total = String(format: "%.1f", Double(size) / 1_000_000)
            let bars = drawn.components(separatedBy: "\rnoise.png [").count - 1
            #expect(bars >= 4, "\(drawn.debugDescription)")
            #expect(drawn.contains("\rnoise.png [\(String(repeating: "#", count: 30))] \(total)/\(total) MB\r\u{1B}[K"), "\(drawn.debugDescription)")
            let erased = try #require(drawn.range(of: "\r\u{1B}[K"))
            #expect(drawn.range(of: "![noise]")!.lowerBound > erased.lowerBound)

            // Into a pipe: the Markdown line only.
            let piped = try server.diary(["attach", photo.path], token: alice)
            #expect(piped.status == 0 && piped.stderr.isEmpty && !piped.stdout.contains("["+"#"), "\(piped.stderr)")
        }
    }
}
