import Foundation
import StoreTestSupport
import Testing
import VipsImages

@Suite("Refusing what is not an accepted image")
struct ImageRefusalTests {
    init() throws { try VipsImageLibrary.start() }

    private func refusal(_ bytes: [UInt8]) -> ImageRefusal? {
        do {
            let processed = try ProcessedImage.process(bytes)
            Issue.record("expected a refusal, got \(processed.width)×\(processed.height) \(processed.format)")
            return nil
        } catch {
            return error
        }
    }

    @Test("SVG, HTML, PDF, a PPM (a loader libvips has but Diary blocks) and noise are unsupported formats")
    func unsupportedFormats() {
        let inputs: [String: [UInt8]] = [
            "svg": Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>"#.utf8),
            "html": Array("<!doctype html><html><body>hello</body></html>".utf8),
            "pdf": Array("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n".utf8),
            "ppm": Array("P6\n2 2\n255\n".utf8) + [UInt8](repeating: 200, count: 12),
            "noise": (0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) },
        ]
        for (name, bytes) in inputs {
            #expect(refusal(bytes) == .unsupportedFormat, "\(name)")
        }
    }

    @Test("an empty body is refused as empty")
    func empty() {
        #expect(refusal([]) == .empty)
    }

    @Test("a truncated JPEG and a JPEG whose header is garbage are undecodable")
    func truncatedAndCorrupt() throws {
        try withTemporaryDirectory { directory in
            let path = directory.url.appendingPathComponent("photo.jpg").path
            try TestImageTools.pillow(#"Image.radial_gradient("L").resize((1200, 900)).save(sys.argv[1], quality=90)"#, path)
            let whole = try TestImageTools.bytes(of: path)
            guard case .undecodable = refusal(Array(whole.prefix(whole.count / 2))) else {
                Issue.record("a truncated JPEG must be undecodable")
                return
            }
            guard case .undecodable = refusal([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0x41, count: 64)) else {
                Issue.record("a JPEG with a garbage header must be undecodable")
                return
            }
        }
    }

    @Test("a PNG of a few hundred KB claiming 30,000 × 30,000 is refused from its header, before decoding")
    func decompressionBomb() throws {
        try withTemporaryDirectory { directory in
            let path = directory.url.appendingPathComponent("bomb.png").path
            try TestImageTools.pillow(#"Image.new("1", (30000, 30000)).save(sys.argv[1], "PNG", optimize=True)"#, path)
            let bytes = try TestImageTools.bytes(of: path)
            let clock = ContinuousClock()
            var answer: ImageRefusal?
            let elapsed = clock.measure { answer = refusal(bytes) }
            #expect(answer == .tooManyPixels(width: 30_000, height: 30_000))
            // Decoding it takes seconds (12 s measured on the loaded machine); the header, milliseconds.
            #expect(elapsed < .seconds(2), "\(elapsed)")
        }
    }

    @Test("a header declaring exactly the limit is read; one pixel more is refused")
    func pixelLimitIsInclusive() throws {
        try withTemporaryDirectory { directory in
            let path = directory.url.appendingPathComponent("wide.png").path
            try TestImageTools.pillow(#"Image.new("L", (1000, 50)).save(sys.argv[1])"#, path)
            let bytes = try TestImageTools.bytes(of: path)
            #expect(try ImageHeader.read(bytes, limits: ImageLimits(maximumPixels: 50_000)).width == 1_000)
            #expect(throws: ImageRefusal.tooManyPixels(width: 1_000, height: 50)) {
                try ImageHeader.read(bytes, limits: ImageLimits(maximumPixels: 49_999))
            }
        }
    }
}
