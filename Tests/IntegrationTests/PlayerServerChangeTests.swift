import Foundation
import XCTest
@testable import JackCapture

/// A player hears the server's period and sample-rate changes through its host and reports each
/// as an interruption, while playing goes on. Its own class: it changes its server's period.
final class PlayerServerChangeTests: JackTestCase {
    func testAPeriodAndASampleRateChangeAreInterruptions() throws {
        let file = try writeFloatFile("tone.wav", channels: 2, frames: 4 * server.sampleRate) { frame, _ in
            Float(frame % 100) / 1_000
        }
        let player = try Player(contentsOf: URL(fileURLWithPath: file))
        try player.prepareToPlay(clientName: "changes", server: server.name, outputs: .none)
        defer { player.close() }
        player.numberOfLoops = -1
        try player.play()
        defer { try? setPeriod(Self.period) }
        try setPeriod(2_048)
        try Self.waitFor("the period change") { player.interruptions.contains(.bufferSizeChanged(2_048)) }
        // No JACK 2 backend here changes its rate while running: the host's handler, as JACK runs it.
        player.host?.simulateSampleRateNotification(44_100)
        try Self.waitFor("the rate change") { player.interruptions.contains(.sampleRateChanged(44_100)) }
        XCTAssertTrue(player.isPlaying, "playing goes on")
        XCTAssertEqual(player.interruptions.filter { $0 == .sampleRateChanged(44_100) }.count, 1, "told once")
    }
}
