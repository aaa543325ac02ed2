import Foundation
import SheetCore
@testable import SheetRenderKit
import SheetTestSupport
import Testing

/// The typeset goldens' comparison (`GoldenComparison`) lets pass what a point release of the
/// text stack changes and fails what a person sees: the Arabic sheet drawn here, then changed.
@Suite struct GoldenComparisonTests {
    /// The Arabic sheet of `TypesetTextTests`, drawn by this machine's text stack: R, G, B rows.
    static let arabic: Result<(rgb: [UInt8], width: Int, height: Int), Error> = Result {
        let typesetter = try TypesetTextTests.typesetter.get()
        let c = try #require(TypesetTextTests.cases.first { $0.name == "text-arabic-540x960" })
        let items = c.labels.enumerated().map { SheetItem(id: "item\($0.offset)", label: $0.element) }
        let list = ListScene(items: items, titleBarHeight: 56, itemHeight: 56, scroll: 0, othersScale: 1,
                             lifted: nil, moving: [], height: c.height)
        let scene = SheetScene(width: c.width, height: c.height, scale: 1, top: c.top, dim: 0.7, progress: 0.7,
                               title: c.title, list: list)
        let canvas = Canvas(width: c.width, height: c.height, format: .xrgb8888)
        Painter(typesetter: typesetter, icons: IconCache()).draw(scene, into: canvas)
        return (canvas.rgbBytes(), c.width, c.height)
    }

    func compared(_ change: (inout [UInt8], Int, Int) -> Void) throws -> GoldenComparison {
        let (rgb, width, height) = try Self.arabic.get()
        var changed = rgb
        change(&changed, width, height)
        return GoldenComparison(expected: rgb, actual: changed, width: width, height: height)
    }

    /// Whether the pixel at `i` is text's ink: darker than the white card by a third.
    static func isInk(_ rgb: [UInt8], _ i: Int) -> Bool { rgb[i] < 170 && rgb[i + 1] < 170 && rgb[i + 2] < 170 }

    @Test func theSamePictureIsTheSame() throws {
        let same = try compared { _, _, _ in }
        #expect(same.isSame && same.differingPixels == 0 && same.differingBlocks.isEmpty)
    }

    /// What a FreeType or Cairo release does: every edge of every glyph some levels lighter (a
    /// gamma tweak), or the outlines a pixel wider, as an emboldening or a hinting change makes
    /// them.
    @Test func anotherAntiAliasingOfTheSameTextIsTheSame() throws {
        let lighter = try compared { rgb, width, height in
            for i in stride(from: 0, to: rgb.count, by: 3) where rgb[i] > 40 && rgb[i] < 215 {
                for c in 0..<3 { rgb[i + c] = UInt8(min(255, Int(rgb[i + c]) + 15)) }
            }
        }
        #expect(lighter.isSame, "\(lighter.summary)")
        let wider = try compared { rgb, width, height in
            let original = rgb
            for y in 300..<height {
                for x in 1..<width {
                    let i = (y * width + x) * 3
                    if Self.isInk(original, i - 3), !Self.isInk(original, i) {
                        for c in 0..<3 { rgb[i + c] = UInt8((Int(original[i + c]) + Int(original[i - 3 + c])) / 2) }
                    }
                }
            }
        }
        #expect(wider.differingPixels > 1_000, "more pixels than 0.2 % of the picture, the tolerance of pixels before")
        #expect(wider.isSame, "\(wider.summary)")
    }

    /// The list 3 px lower than its place.
    @Test func textInAnotherPlaceDiffers() throws {
        let lower = try compared { rgb, width, height in
            let original = rgb
            for y in 360..<height { for x in 0..<width * 3 { rgb[y * width * 3 + x] = original[(y - 3) * width * 3 + x] } }
        }
        #expect(!lower.isSame, "\(lower.summary)")
    }

    /// The rows' text set the other way: each row's band mirrored, so the labels start at the left.
    @Test func textSetTheOtherWayDiffers() throws {
        let mirrored = try compared { rgb, width, height in
            let original = rgb
            for y in 356..<748 {
                for x in 0..<width {
                    for c in 0..<3 { rgb[(y * width + x) * 3 + c] = original[(y * width + width - 1 - x) * 3 + c] }
                }
            }
        }
        #expect(!mirrored.isSame, "\(mirrored.summary)")
    }

    /// The ink of the long row's left end (its ellipsis and the words before it) gone, as a
    /// label clipped at the card's edge would be.
    @Test func clippedTextDiffers() throws {
        let clipped = try compared { rgb, width, height in
            for y in 644..<684 { for x in 0..<200 { for c in 0..<3 { rgb[(y * width + x) * 3 + c] = 255 } } }
        }
        #expect(!clipped.isSame, "\(clipped.summary)")
    }

    /// The title's first word (at the right: it reads right to left) missing its ink.
    @Test func aMissingWordDiffers() throws {
        let missing = try compared { rgb, width, height in
            for y in 312..<350 { for x in 470..<522 { for c in 0..<3 { rgb[(y * width + x) * 3 + c] = 255 } } }
        }
        #expect(!missing.isSame, "\(missing.summary)")
    }
}
