import CVips
import Synchronization

/// libvips for the whole process: started once, with only the loaders Diary accepts.
///
/// libvips reads dozens of formats, some through large parsers never meant for hostile input
/// (SVG through librsvg, PDF through poppler, matrix and CSV, its own `.vips` format). Every
/// loader is blocked, then the five of `ImageFormat` are unblocked by class: a file that only a
/// blocked loader recognises is refused as an unsupported format before any parser sees it.
public enum VipsImageLibrary {
    private static let started = Mutex<Bool>(false)

    /// Starts libvips once per process; later calls do nothing. `threadsPerImage` bounds the
    /// worker threads one pipeline uses (callers bound how many pipelines run at once).
    /// Its operation cache is turned off: uploads are never processed twice, and the cache
    /// would keep decoded images alive.
    public static func start(threadsPerImage: Int = 1) throws(VipsStartError) {
        try started.withLock { (isStarted: inout Bool) throws(VipsStartError) in
            if isStarted { return }
            guard vips_init("diary") == 0 else { throw VipsStartError(message: takeErrorText()) }
            diary_vips_silence_warnings()
            vips_block_untrusted_set(1)
            vips_operation_block_set("VipsForeignLoad", 1)
            for format in ImageFormat.allCases {
                vips_operation_block_set(format.loaderClass, 0)
            }
            vips_cache_set_max(0)
            vips_cache_set_max_mem(0)
            vips_concurrency_set(Int32(max(1, threadsPerImage)))
            isStarted = true
        }
    }

    /// libvips' error text since the last call, cleared: its errors are kept per thread.
    static func takeErrorText() -> String {
        let text = String(cString: vips_error_buffer())
        vips_error_clear()
        return text.trimmingTrailingNewlines()
    }
}

/// libvips did not start (a missing module or a version mismatch): the server cannot take uploads.
public struct VipsStartError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { "libvips did not start: \(message)" }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = Substring(self)
        while text.last?.isNewline == true { text = text.dropLast() }
        return String(text)
    }
}
