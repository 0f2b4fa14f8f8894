import DiaryAPI
import DiaryStore
import Dispatch
import VipsImages

/// What one server allows of uploads, and the processing they go through.
public struct MediaLimits: Sendable {
    /// The bytes a user's kept images may take in all (`--media-quota`).
    public var quotaBytes: Int64
    /// The largest upload read, refused from its `Content-Length` before the body is read.
    public var maximumUploadBytes: Int
    /// Uploads processed at once; the others wait their turn. Decoding a 12-megapixel photo
    /// takes a core for about 0.2 s and tens of MB: one per core keeps both bounded.
    public var concurrentProcessing: Int

    public init(quotaBytes: Int64 = 1 << 30, maximumUploadBytes: Int = UploadMedia.maximumBytes, concurrentProcessing: Int = 2) {
        self.quotaBytes = quotaBytes
        self.maximumUploadBytes = maximumUploadBytes
        self.concurrentProcessing = max(1, concurrentProcessing)
    }
}

/// Turns an upload into what is kept (`ProcessedImage`), no more than
/// `MediaLimits.concurrentProcessing` at once, and a refusal into its problem.
///
/// Uploads are POSTs, which the transport answers on its blocking threads, never on the
/// workers that serve reads; the bound here keeps a burst of uploads from taking every core
/// and the memory of as many decoded images.
final class MediaProcessing: Sendable {
    let limits: MediaLimits
    private let turns: DispatchSemaphore

    init(limits: MediaLimits) {
        self.limits = limits
        turns = DispatchSemaphore(value: limits.concurrentProcessing)
    }

    /// The image to keep, or the problem with the upload: 415 for what is not an accepted
    /// image by its bytes, 422 for an empty, corrupt or truncated one, or one over 50 megapixels.
    func process(_ upload: ImageUpload) throws(Problem) -> NewMedia {
        do {
            try VipsImageLibrary.start()
        } catch {
            throw Problem(title: "Service Unavailable", status: 503, detail: "The server cannot process images now.")
        }
        turns.wait()
        defer { turns.signal() }
        do {
            let image = try ProcessedImage.process(upload.bytes)
            return NewMedia(contentType: image.contentType, width: image.width, height: image.height, data: image.bytes)
        } catch {
            throw Self.problem(error)
        }
    }

    static func problem(_ refusal: ImageRefusal) -> Problem {
        let accepted = "JPEG, PNG, WebP, GIF or HEIC"
        switch refusal {
        case .unsupportedFormat:
            return .unsupportedMediaType("The body is not an image this server takes (\(accepted)), judged by its bytes; nothing was stored.")
        case .empty:
            return unprocessable("The body is empty; nothing was stored.")
        case .undecodable:
            // libvips' own words stay in the server: they may quote the file.
            return unprocessable("The image is truncated or corrupt and cannot be decoded; nothing was stored.")
        case .tooManyPixels(let width, let height):
            return unprocessable(
                "The image is \(width) × \(height) pixels, more than the 50 megapixels this server decodes; nothing was stored."
            )
        }
    }

    private static func unprocessable(_ detail: String) -> Problem {
        Problem(
            type: "/problems/unprocessable-image", title: "Unprocessable Content", status: 422, detail: detail,
            errors: [FieldError(field: "body", message: detail)]
        )
    }
}
