import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryTerminal
import Foundation
import HTTPTypes

// MARK: - diary attach, diary media

extension DiaryCommand {
    struct Attach: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "attach",
            abstract: "Upload images and print the Markdown lines that show them.",
            discussion: """
                Each file is processed by the server (turned upright, at most 2,048 px, every metadata block \
                such as GPS removed) and is yours alone until an entry others may read links to it.
                """
        )

        @OptionGroup var globals: GlobalOptions

        @Argument(help: ArgumentHelp("Image files (JPEG, PNG, WebP, GIF, HEIC).", valueName: "file"))
        var files: [String]

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("Name at least one image file.") }
        }

        func run() async throws {
            let client = try globals.makeClient(requiringToken: true)
            for line in try await ImageAttachments.upload(files, client: client) {
                Output.write(line)
            }
        }
    }

    struct Media: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "media",
            abstract: "List your uploaded images, or delete one.",
            subcommands: [ListImages.self, DeleteImage.self],
            defaultSubcommand: ListImages.self
        )
    }

    struct ListImages: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Your images, newest first, with the entries that show each.")

        @OptionGroup var globals: GlobalOptions

        @Option(help: "The page (default: 1).")
        var page = 1

        func run() async throws {
            let client = try globals.makeClient(requiringToken: true)
            let listed = try await client.send(ListMedia(page: PageRequest(page: max(1, page), perPage: PageRequest.maxPerPage)))
            for item in listed.media {
                let entries = (item.entryIDs ?? []).map { "#\($0)" }.joined(separator: " ")
                Output.write("\(item.id)  \(item.width)×\(item.height)  \(item.bytes) bytes  \(item.url)" + (entries.isEmpty ? "" : "  in \(entries)"))
            }
            if listed.media.isEmpty { Output.write("no images") }
        }
    }

    struct DeleteImage: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete one of your images (entries keep their text).")

        @OptionGroup var globals: GlobalOptions

        @Argument(help: "The image's id (or its /media/… URL).")
        var id: String

        func validate() throws {
            guard MediaID(Self.idText(id)) != nil else { throw ValidationError("'\(id.prefix(60))' is not an image id (32 hex digits).") }
        }

        func run() async throws {
            let client = try globals.makeClient(requiringToken: true)
            guard let mediaID = MediaID(Self.idText(id)) else { return }
            _ = try await client.send(DeleteMedia(mediaID: mediaID))
            Output.write("deleted image \(mediaID)")
        }

        /// The id from an id or a URL ending in one.
        static func idText(_ text: String) -> String {
            String(text.split(separator: "/").last ?? "")
        }
    }
}

/// Uploads image files and says how an entry shows them.
enum ImageAttachments {
    /// Uploads `files` in turn; a Markdown line for each: `![name](/media/…)`.
    static func upload(_ files: [String], client: DiaryClient) async throws -> [String] {
        var lines: [String] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ValidationError("Cannot read \(file).")
            }
            let name = URL(fileURLWithPath: file).lastPathComponent
            let item = try await upload(data, named: name, key: UUID().uuidString, client: client)
            lines.append("![\(altText(name))](\(item.url))")
        }
        return lines
    }

    /// Uploads one image under `key` (`Idempotency-Key`), retried once when the answer is lost:
    /// with the same key, a retry is replayed, not stored twice.
    static func upload(_ data: Data, named name: String, key: String, client: DiaryClient) async throws -> MediaItem {
        let upload = UploadMedia(ImageUpload(fileBytes: [UInt8](data), fileName: name))
        let headers: HTTPFields = [.idempotencyKey: key]
        // On a terminal, a large file's bytes as they go; the bar is gone before anything is printed.
        let bar = UploadProgressBar(bytes: data.count, label: DisplayWidth.truncate(name, to: 30))
        defer { bar?.erase() }
        var progress: UploadProgress?
        if let bar { progress = { sent, _ in bar.update(sent: sent) } }
        do {
            return try await client.send(upload, headers: headers, progress: progress)
        } catch is ConnectionError {
            return try await client.send(upload, headers: headers, progress: progress)
        }
    }

    /// The file's name without its extension, with the characters Markdown would read in an
    /// image's description (`[`, `]`, `\`) dropped.
    static func altText(_ fileName: String) -> String {
        let stem = fileName.split(separator: ".").dropLast().joined(separator: ".")
        return String((stem.isEmpty ? fileName : stem).filter { !"[]\\".contains($0) })
    }
}
