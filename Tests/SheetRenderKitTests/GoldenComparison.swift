import Foundation
import SheetRenderKit
import SheetTestSupport
import Testing

/// How far a typeset picture may drift from its golden and still be the same picture to a person.
///
/// Text is the fonts' and the shaper's: a Debian point release of HarfBuzz, FreeType, Pango or
/// the Noto fonts moves a glyph's anti-aliasing by a few levels, an outline by a fraction of a
/// pixel, an advance by a pixel. None of that is what a person sees change; what they see is the
/// text's place, its ink, its direction, a word missing or clipped. So the pictures are seen in
/// blocks of `block` px a side, each block's mean colour (a glyph's ink without its edges), and
/// are the same when at most `blocks` of the blocks differ by more than `blockLevels` levels in
/// a channel. A line moved by a few pixels, set the other way, ellipsized elsewhere or missing
/// a word changes the ink of a run of blocks along it and fails (`GoldenComparisonTests`);
/// counting pixels instead, a word of 17 px text clipped away is 700 pixels, which a share of
/// the picture that lets anti-aliasing through lets through too.
enum GoldenTolerance {
    /// Levels (of 255) a channel may differ by before its pixel counts as different (said in
    /// a failure, beside the blocks).
    static let channel = 40
    /// The side of a block, in pixels: at the sheet's 17 px text, half a line's height.
    static let block = 8
    /// Levels a block's mean may differ by in a channel before the block counts as different.
    static let blockLevels = 20
    /// The share of a picture's blocks that may count as different: 4 of a 540x960 picture's
    /// 8,160, fewer than one word's.
    static let blocks = 0.0005
}

/// Two pictures of the same size, compared as `GoldenTolerance` says.
struct GoldenComparison {
    let width: Int
    let height: Int
    /// Pixels that differ by more than `GoldenTolerance.channel` in some channel.
    let differingPixels: Int
    /// Blocks whose mean differs by more than `GoldenTolerance.blockLevels` in some channel.
    let differingBlocks: [(x: Int, y: Int)]
    let blockCount: Int

    var allowedBlocks: Int { Int(Double(blockCount) * GoldenTolerance.blocks) }
    var isSame: Bool { differingBlocks.count <= allowedBlocks }

    /// `expected` and `actual`: R, G, B bytes, row after row, of `width` x `height`.
    init(expected: [UInt8], actual: [UInt8], width: Int, height: Int) {
        precondition(expected.count == width * height * 3 && actual.count == expected.count)
        self.width = width
        self.height = height
        var differing = 0
        for i in stride(from: 0, to: actual.count, by: 3) where Self.channelDifference(expected, actual, i) > GoldenTolerance.channel {
            differing += 1
        }
        differingPixels = differing
        let side = GoldenTolerance.block
        var blocks: [(x: Int, y: Int)] = []
        var count = 0
        for top in stride(from: 0, to: height, by: side) {
            for left in stride(from: 0, to: width, by: side) {
                count += 1
                let a = Self.mean(expected, width: width, left: left, top: top, right: min(left + side, width), bottom: min(top + side, height))
                let b = Self.mean(actual, width: width, left: left, top: top, right: min(left + side, width), bottom: min(top + side, height))
                if zip(a, b).contains(where: { abs($0 - $1) > Double(GoldenTolerance.blockLevels) }) { blocks.append((left, top)) }
            }
        }
        differingBlocks = blocks
        blockCount = count
    }

    private static func channelDifference(_ a: [UInt8], _ b: [UInt8], _ i: Int) -> Int {
        max(abs(Int(a[i]) - Int(b[i])), abs(Int(a[i + 1]) - Int(b[i + 1])), abs(Int(a[i + 2]) - Int(b[i + 2])))
    }

    private static func mean(_ rgb: [UInt8], width: Int, left: Int, top: Int, right: Int, bottom: Int) -> [Double] {
        var sum = [0.0, 0.0, 0.0]
        for y in top..<bottom {
            for x in left..<right {
                let i = (y * width + x) * 3
                for c in 0..<3 { sum[c] += Double(rgb[i + c]) }
            }
        }
        let n = Double((right - left) * (bottom - top))
        return sum.map { $0 / n }
    }

    /// The golden faded, with the blocks that differ outlined in red: where to look.
    func differencePicture(expected: [UInt8]) -> [UInt8] {
        var rgb = expected.map { UInt8(191 + Int($0) / 4) }
        let side = GoldenTolerance.block
        for (left, top) in differingBlocks {
            for y in top..<min(top + side, height) {
                for x in left..<min(left + side, width) where y == top || x == left || y == min(top + side, height) - 1 || x == min(left + side, width) - 1 {
                    let i = (y * width + x) * 3
                    (rgb[i], rgb[i + 1], rgb[i + 2]) = (220, 0, 0)
                }
            }
        }
        return rgb
    }

    var summary: String {
        let first = differingBlocks.first.map { ", the first at (\($0.x), \($0.y))" } ?? ""
        return "\(differingBlocks.count) blocks of \(GoldenTolerance.block) px differ by more than \(GoldenTolerance.blockLevels) levels "
            + "in their mean (\(allowedBlocks) allowed)\(first); \(differingPixels) pixels by more than \(GoldenTolerance.channel)"
    }
}

/// Where a golden that differs is kept with what was drawn, for a person to look at:
/// `.build/goldens` of the checkout (in a Debian tree's run, of the tree's copy, which is kept).
let keptGoldens = checkout.appendingPathComponent(".build/goldens")

/// The text stack that drew a picture: the installed versions of the packages that shape,
/// rasterise and hold its glyphs, from dpkg's status file.
let textStack: String = {
    let packages = ["libpango-1.0-0", "libharfbuzz0b", "libfreetype6", "libcairo2", "libfontconfig1",
                    "fonts-noto-core", "fonts-noto-cjk", "fonts-noto-color-emoji"]
    let status = (try? String(contentsOfFile: "/var/lib/dpkg/status", encoding: .utf8)) ?? ""
    var versions: [String: String] = [:]
    for stanza in status.components(separatedBy: "\n\n") {
        var package: String?, version: String?, installed = false
        for line in stanza.split(separator: "\n") {
            if line.hasPrefix("Package: ") { package = String(line.dropFirst(9)) }
            if line.hasPrefix("Version: ") { version = String(line.dropFirst(9)) }
            if line.hasPrefix("Status: "), line.hasSuffix(" installed") { installed = true }
        }
        if let package, let version, installed, packages.contains(package) { versions[package] = version }
    }
    return packages.map { "\($0) \(versions[$0] ?? "not installed")" }.joined(separator: ", ")
}()

/// `canvas` against the golden image `name` within `GoldenTolerance`, or written as it when
/// `SHEETD_UPDATE_GOLDENS=1`. A picture that differs is kept in `keptGoldens` as NAME.drawn.png
/// beside a copy of its golden and NAME.difference.png, and the failure names the text stack.
func compareWithTolerance(_ canvas: Canvas, name: String) throws {
    let drawn = PNG.encode(canvas)
    let golden = goldenImage(name)
    if ProcessInfo.processInfo.environment["SHEETD_UPDATE_GOLDENS"] == "1" {
        try Data(drawn).write(to: golden)
        return
    }
    // Text is compared on the releases whose text stack drew goldens (Debian 12, and those with
    // a folder of their own); elsewhere (Debian unstable, whose Pango and fonts move) it is said.
    let releaseGoldens = fixtures.appendingPathComponent("golden/\(systemRelease)").path
    guard systemRelease == goldenRelease || FileManager.default.fileExists(atPath: releaseGoldens) else {
        print("skipped: \(name) against its golden: no goldens were drawn with \(systemRelease)'s Pango and fonts (only \(goldenRelease)'s and Tests/Fixtures/golden/RELEASE's)")
        return
    }
    let goldenBytes = try Data(contentsOf: golden)
    let expected = try PNG.decode(Array(goldenBytes))
    let actual = canvas.rgbBytes()
    guard expected.width == canvas.width, expected.height == canvas.height, expected.rgb.count == actual.count else {
        Issue.record("\(name): \(canvas.width)x\(canvas.height) drawn, the golden is \(expected.width)x\(expected.height)")
        return
    }
    let comparison = GoldenComparison(expected: expected.rgb, actual: actual, width: canvas.width, height: canvas.height)
    if !comparison.isSame {
        try FileManager.default.createDirectory(at: keptGoldens, withIntermediateDirectories: true)
        try Data(drawn).write(to: keptGoldens.appendingPathComponent("\(name).drawn.png"))
        try goldenBytes.write(to: keptGoldens.appendingPathComponent("\(name).golden.png"))
        let difference = PNG.encode(width: canvas.width, height: canvas.height, rgb: comparison.differencePicture(expected: expected.rgb))
        try Data(difference).write(to: keptGoldens.appendingPathComponent("\(name).difference.png"))
        Issue.record("""
            \(name): differs from \(golden.path): \(comparison.summary). Drawn by \(systemRelease) with \(textStack). \
            Kept to look at: \(keptGoldens.path)/\(name).drawn.png, beside \(name).golden.png and \(name).difference.png
            """)
    }
}
