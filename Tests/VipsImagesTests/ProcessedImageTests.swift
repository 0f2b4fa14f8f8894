import Foundation
import StoreTestSupport
import Testing
import VipsImages

/// A phone photo as a phone writes it: 4,000 × 3,000, stored on its side with orientation 6,
/// a camera model and a GPS position. The stored pixels are red in the top half and blue in the
/// bottom half, so the upright image (turned 90° clockwise) is blue on the left, red on the right.
/// A quarter of grey noise gives it a photo's detail, and so a photo's size (about 4 MB).
private let phonePhotoScript = """
im = Image.new("RGB", (4000, 3000), (0, 0, 255))
ImageDraw.Draw(im).rectangle((0, 0, 3999, 1499), fill=(255, 0, 0))
im = Image.blend(im, Image.effect_noise((4000, 3000), 60).convert("RGB"), 0.25)
im.save(sys.argv[1], "JPEG", quality=92)
"""

/// The colour at a fraction of the width and height of a processed image, read back by Pillow.
private func colour(of path: String, atX x: Double, y: Double) throws -> [Int] {
    let script = """
    im = Image.open(sys.argv[1]).convert("RGB")
    print(*im.getpixel((int(im.width * float(sys.argv[2])), int(im.height * float(sys.argv[3])))))
    """
    let output = try TestImageTools.run(TestImageTools.python, ["-c", "import sys\nfrom PIL import Image\n" + script, path, "\(x)", "\(y)"])
    return String(decoding: output, as: UTF8.self).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
}

private func isClose(_ colour: [Int], to expected: [Int]) -> Bool {
    colour.count == expected.count && zip(colour, expected).allSatisfy { abs($0 - $1) < 64 }
}

@Suite("Processing uploads with libvips")
struct ProcessedImageTests {
    init() throws { try VipsImageLibrary.start() }

    @Test("a phone JPEG comes back upright, within 2,048 px, with no EXIF, GPS or camera model")
    func phonePhotoIsMadeSafe() throws {
        try withTemporaryDirectory { directory in
            let original = directory.url.appendingPathComponent("phone.jpg").path
            try TestImageTools.pillow(phonePhotoScript, original)
            try TestImageTools.exiftool(
                "-q", "-overwrite_original", "-n", "-Orientation=6", "-Model=Diary Test Phone",
                "-GPSLatitude=35.0142", "-GPSLatitudeRef=N", "-GPSLongitude=135.7935", "-GPSLongitudeRef=E",
                "-Comment=<script>alert(1)</script>", original
            )
            let before = try TestImageTools.metadataGroups(of: original)
            #expect(before.contains("GPS") && before.contains("IFD0"), "the fixture carries what must go: \(before)")

            let upload = try TestImageTools.bytes(of: original)
            let clock = ContinuousClock()
            let started = clock.now
            let processed = try ProcessedImage.process(upload)
            // A measurement, not a bound: timing bounds belong in scripts/stress, not the gate.
            print("processing a 12-megapixel JPEG (\(upload.count) bytes) took \(clock.now - started)")
            #expect(processed.format == .jpeg && processed.sourceFormat == .jpeg)
            #expect(processed.width == 1_536 && processed.height == 2_048, "upright and scaled: \(processed.width)×\(processed.height)")

            let kept = directory.url.appendingPathComponent("kept.jpg").path
            try TestImageTools.write(processed.bytes, to: kept)
            let keptGroups = try TestImageTools.metadataGroups(of: kept)
            #expect(keptGroups.isEmpty, "metadata left: \(keptGroups)")
            #expect(!processed.bytes.containsSequence(Array("script".utf8)))
            #expect(isClose(try colour(of: kept, atX: 0.25, y: 0.5), to: [0, 0, 255]), "left half blue once upright")
            #expect(isClose(try colour(of: kept, atX: 0.75, y: 0.5), to: [255, 0, 0]), "right half red once upright")
        }
    }

    @Test("a transparent PNG stays PNG with its alpha; a small image is not scaled up")
    func transparentPNGStaysPNG() throws {
        try withTemporaryDirectory { directory in
            let original = directory.url.appendingPathComponent("logo.png").path
            try TestImageTools.pillow(#"Image.new("RGBA", (300, 200), (10, 200, 30, 128)).save(sys.argv[1])"#, original)
            let processed = try ProcessedImage.process(try TestImageTools.bytes(of: original))
            #expect(processed.format == .png && processed.contentType == "image/png")
            #expect(processed.width == 300 && processed.height == 200)
            let kept = directory.url.appendingPathComponent("kept.png").path
            try TestImageTools.write(processed.bytes, to: kept)
            let tags = try TestImageTools.tags(of: kept)
            #expect(tags["PNG:ColorType"] as? String == "RGB with Alpha", "\(tags)")
        }
    }

    @Test("WebP without alpha becomes JPEG; an animated GIF becomes its first frame as PNG")
    func webpAndGIF() throws {
        try withTemporaryDirectory { directory in
            let webp = directory.url.appendingPathComponent("a.webp").path
            try TestImageTools.pillow(#"Image.new("RGB", (3000, 1000), (200, 100, 50)).save(sys.argv[1], "WEBP")"#, webp)
            let fromWebP = try ProcessedImage.process(try TestImageTools.bytes(of: webp))
            #expect(fromWebP.sourceFormat == .webp && fromWebP.format == .jpeg)
            #expect(fromWebP.width == 2_048 && fromWebP.height == 683)

            let gif = directory.url.appendingPathComponent("a.gif").path
            try TestImageTools.pillow("""
            frames = [Image.new("P", (120, 80), i) for i in (1, 2, 3)]
            frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], duration=100, loop=0)
            """, gif)
            let fromGIF = try ProcessedImage.process(try TestImageTools.bytes(of: gif))
            #expect(fromGIF.sourceFormat == .gif && fromGIF.format == .png)
            #expect(fromGIF.width == 120 && fromGIF.height == 80, "one frame, not a strip of three")
        }
    }

    @Test("a JPEG that is also HTML keeps none of the HTML")
    func polyglotLosesItsHTML() throws {
        try withTemporaryDirectory { directory in
            let original = directory.url.appendingPathComponent("polyglot.jpg").path
            try TestImageTools.pillow(#"Image.new("RGB", (64, 64), (9, 9, 9)).save(sys.argv[1])"#, original)
            let html = Array("<html><script>alert(document.cookie)</script></html>".utf8)
            let processed = try ProcessedImage.process(try TestImageTools.bytes(of: original) + html)
            #expect(processed.format == .jpeg)
            #expect(!processed.bytes.containsSequence(Array("<script".utf8)))
        }
    }

    @Test("a PNG with a huge iCCP chunk keeps no profile, or is refused as undecodable")
    func hugeICCProfile() throws {
        try withTemporaryDirectory { directory in
            let original = directory.url.appendingPathComponent("icc.png").path
            try TestImageTools.pillow(#"Image.new("RGB", (32, 32), (1, 2, 3)).save(sys.argv[1], icc_profile=b"\x00" * 4_000_000)"#, original)
            do {
                let processed = try ProcessedImage.process(try TestImageTools.bytes(of: original))
                let kept = directory.url.appendingPathComponent("kept.png").path
                try TestImageTools.write(processed.bytes, to: kept)
                let keptGroups = try TestImageTools.metadataGroups(of: kept)
                #expect(keptGroups.isEmpty, "metadata left: \(keptGroups)")
                #expect(processed.bytes.count < 100_000)
            } catch let refusal as ImageRefusal {
                guard case .undecodable = refusal else {
                    Issue.record("a damaged profile is an undecodable image, not \(refusal)")
                    return
                }
            }
        }
    }
}

extension Array where Element == UInt8 {
    func containsSequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { start in self[start..<(start + needle.count)].elementsEqual(needle) }
    }
}
