import Foundation
import Testing

/// Pillow and exiftool, run as programs: the images the tests feed are made the way a phone or
/// an editor makes them, not by the library under test.
///
enum TestImageTools {
    struct ToolFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs Python `code` with Pillow imported as `Image`, and `arguments` as `sys.argv[1:]`.
    static func pillow(_ code: String, _ arguments: String...) throws {
        let prelude = "import sys\nfrom PIL import Image, ImageDraw\n"
        try run(python, ["-c", prelude + code] + arguments)
    }

    /// Pillow's Python: `DIARY_TEST_PYTHON` (scripts/test points it at the virtualenv it makes
    /// with Pillow from PyPI), else that virtualenv when an earlier run made it, else `python3`.
    static var python: String {
        if let chosen = ProcessInfo.processInfo.environment["DIARY_TEST_PYTHON"] { return chosen }
        let made = FileManager.default.currentDirectoryPath + "/.build/venv-images/bin/python"
        return FileManager.default.isExecutableFile(atPath: made) ? made : "python3"
    }

    /// Runs exiftool with `arguments`, and returns its standard output.
    @discardableResult
    static func exiftool(_ arguments: String...) throws -> Data {
        try run("exiftool", arguments)
    }

    /// Every tag exiftool finds in `path`, each named `Group:Tag` (`exiftool -j -a -G1`).
    static func tags(of path: String) throws -> [String: Any] {
        let output = try run("exiftool", ["-j", "-a", "-G1", path])
        let list = try JSONSerialization.jsonObject(with: output) as? [[String: Any]]
        return list?.first ?? [:]
    }

    /// The tag groups of `path` that are metadata an upload must not keep: EXIF blocks, GPS,
    /// XMP, IPTC, ICC profiles, maker notes and comments. What stays is the file itself (its
    /// header, JFIF's and PNG's) and PNG's pixel density (`pHYs`, which libpng writes from
    /// the image's resolution and which says nothing of where or with what it was taken).
    static func metadataGroups(of path: String) throws -> Set<String> {
        let kept: Set<String> = ["SourceFile", "ExifTool", "System", "File", "Composite", "PNG", "PNG-pHYs", "JFIF"]
        let groups = try tags(of: path).keys.compactMap { $0.split(separator: ":").first.map(String.init) }
        return Set(groups).subtracting(kept)
    }

    @discardableResult
    static func run(_ program: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailure(description: "\(program) failed (\(process.terminationStatus)): \(errorText)")
        }
        return data
    }

    static func bytes(of path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
