import Foundation
import XCTest
@testable import JackCapture

/// `ControlCore.answer`: what `apply` does, and how it went for the surface that sent the
/// command: done, refused, or failed with the error the core also told as an event.
final class ControlAnswerTests: JackTestCase {
    func testAnAnswerIsDoneRefusedOrTheErrorTheCoreTold() throws {
        try "[session]\nname = \"ans\"\nformat = \"wav\"\n[[track]]\nname = \"A\"\nsource = \"sig:out_1\"\n[[track]]\nname = \"B\"\nsource = \"sig:out_2\"\n"
            .write(toFile: path("ans.toml"), atomically: true, encoding: .utf8)
        let session = try StudioSession(definition: try SessionDefinition.load(path: path("ans.toml")), serverName: server.name)
        defer { session.close() }
        let core = ControlCore(session: session, plan: .interactive)
        core.start()
        _ = core.takeEvents()

        XCTAssertEqual(core.answer(.stop), .refused(.nothingRunning(.stop)))
        XCTAssertEqual(core.answer(.arm(track: "Cowbell")), .failed(.session(.unknownTrack("Cowbell", known: ["A", "B"]))))
        XCTAssertEqual(core.answer(.mark(take: 9, .circled)), .failed(.session(.takeLog(.noSuchTake(9)))))
        XCTAssertEqual(core.answer(.disarm(track: "B")), .done)
        XCTAssertEqual(core.state.armedTracks, ["A"])
        // The events stay for the run loop (the console tells them all), in order.
        let events = core.takeEvents()
        XCTAssertEqual(events.count, 4, "\(events)")
        guard events.count == 4 else { return }
        guard case .refused(.stop, .nothingRunning) = events[0] else { return XCTFail("\(events[0])") }
        guard case .error(.session(.unknownTrack)) = events[1] else { return XCTFail("\(events[1])") }
        guard case .error(.session(.takeLog(.noSuchTake(9)))) = events[2] else { return XCTFail("\(events[2])") }
        guard case .trackArmed(track: "B", armed: false) = events[3] else { return XCTFail("\(events[3])") }
        // An error already waiting from before is not this command's.
        XCTAssertEqual(core.answer(.arm(track: "Cowbell")), .failed(.session(.unknownTrack("Cowbell", known: ["A", "B"]))))
        XCTAssertEqual(core.answer(.arm(track: "B")), .done)
        core.apply(.quit)
    }
}
