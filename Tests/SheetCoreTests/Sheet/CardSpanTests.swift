import Testing
@testable import SheetCore

/// The card's width on a wide display: at most `maximumWidth`, placed by `alignment`, on whole
/// pixels; on a narrower screen the whole width, as before.
@Suite struct CardSpanTests {
    @Test func aCarPanelShowsA640PointCardInTheMiddle() {
        let span = SheetLayout().cardSpan(screenWidth: 1920)
        #expect(span == CardSpan(left: 640, width: 640))
        #expect(span.contains(x: 640) && span.contains(x: 1279.5) && !span.contains(x: 1280) && !span.contains(x: 639.9))
    }

    @Test func startAndEndPutTheCardAgainstAnEdge() {
        var layout = SheetLayout()
        layout.alignment = .start
        #expect(layout.cardSpan(screenWidth: 1920) == CardSpan(left: 0, width: 640))
        layout.alignment = .end
        #expect(layout.cardSpan(screenWidth: 1920) == CardSpan(left: 1280, width: 640))
    }

    @Test func aPhoneInPortraitKeepsTheWholeWidth() {
        // 1080x2340 at scale 2.75 is 392.7 pt wide.
        let span = SheetLayout().cardSpan(screenWidth: 1080 / 2.75, scale: 2.75)
        #expect(span.left == 0 && span.width == 1080 / 2.75)
        #expect(SheetLayout().cardSpan(screenWidth: 640) == CardSpan(left: 0, width: 640))
    }

    @Test func theEdgesFallOnWholePixels() {
        // 1366 px at scale 1.5 is 910.67 pt: the card is 960 px, centred on 406 spare pixels.
        let span = SheetLayout().cardSpan(screenWidth: 1366 / 1.5, scale: 1.5)
        #expect(span.left * 1.5 == 203 && span.width * 1.5 == 960)
        // An odd count of spare pixels puts the extra one on the right.
        #expect(SheetLayout().cardSpan(screenWidth: 1921).left == 640)
    }

    @Test func theCloseButtonSitsWhereTheTitleEnds() {
        let layout = SheetLayout(), span = CardSpan(left: 640, width: 640)
        #expect(layout.closeButtonCentre(top: 100, span: span) == Point(x: 1280 - 31, y: 131))
        #expect(layout.closeButtonCentre(top: 100, span: span, direction: .rightToLeft) == Point(x: 640 + 31, y: 131))
        #expect(layout.isOnCloseButton(Point(x: 671, y: 131), top: 100, span: span, direction: .rightToLeft))
        #expect(!layout.isOnCloseButton(Point(x: 671, y: 131), top: 100, span: span))
    }

    @Test func besideTheCardIsOffIt() {
        let layout = SheetLayout(), span = CardSpan(left: 640, width: 640)
        #expect(layout.isOnCard(Point(x: 900, y: 500), top: 300, span: span))
        #expect(!layout.isOnCard(Point(x: 300, y: 500), top: 300, span: span))
        #expect(!layout.isOnCard(Point(x: 1500, y: 500), top: 300, span: span))
        // The grabber's target is over the card's centre.
        #expect(layout.isOnCard(Point(x: 960, y: 290), top: 300, span: span))
        #expect(!layout.isOnCard(Point(x: 540, y: 290), top: 300, span: span))
    }
}
