import Foundation
import Testing
@testable import JackCaptureRemote

@Suite("Browser remote: refusals told on the console")
struct WebRemoteNoticesTests {
    @Test func aFloodIsCountedNotPrinted() {
        let notices = WebRemoteNotices()
        let start = Date()
        for index in 0..<500 { notices.refuse("garbage \(index)", now: start) }
        #expect(notices.refusedCount == 500)
        let first = notices.takeLines(now: start)
        #expect(first == (0..<8).map { "garbage \($0)" } + ["492 more refused"])
        // More within the second: counted, told as one line a second later.
        for _ in 0..<100 { notices.refuse("more", now: start.addingTimeInterval(0.5)) }
        #expect(notices.takeLines(now: start.addingTimeInterval(0.6)).isEmpty)
        #expect(notices.takeLines(now: start.addingTimeInterval(1.1)) == ["100 more refused"])
        #expect(notices.takeLines(now: start.addingTimeInterval(1.2)).isEmpty)
        // A new second tells lines again.
        notices.refuse("later", now: start.addingTimeInterval(2))
        #expect(notices.takeLines(now: start.addingTimeInterval(2)) == ["later"])
        #expect(notices.refusedCount == 601)
    }
}
