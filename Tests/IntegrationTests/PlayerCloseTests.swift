import Foundation
import XCTest
@testable import JackCapture

/// Closing a player while its reader is busy never touches a closed JACK client: the reader (and
/// its connection watch) is stopped and joined before the client deactivates and closes.
final class PlayerCloseTests: JackTestCase {
    /// Short periods: activating and deactivating a client waits for cycles, so a thousand of
    /// them go faster (nothing here is checked sample by sample, so xruns do not matter).
    override class var period: Int { 256 }

    /// 400 times: a 64-channel player prepared with no connections, started, and closed while
    /// its reader is in its first rounds (watching 64 ports' connections, filling the rings).
    /// Before the host closed its worker first, the old order (deactivate, close, then stop the
    /// reader) let the reader call jack_port_connected on the closed client: this test segfaulted
    /// in libjack within its first second (about 20 rounds), three runs out of three. 400 rounds
    /// meet each of the 25 close delays 16 times, in about 19 s (1000 took 47 s of the suite's 15
    /// minutes).
    func testClosingWhileTheReaderIsBusyNeverCrashes() throws {
        // The player's client the only one in this process, as in `jcap play`: when the last
        // client of a process closes, libjack drops its view of the server's graph, and a
        // jack_port_connected after that (the old reader's connection check) fails its assertion
        // or faults. While another client is open the same misuse passes unnoticed.
        observer.close()
        let channels = 64
        let file = try writeFloatFile("c64.wav", channels: channels, frames: 4_800) { frame, channel in
            Float((frame + channel) % 100) / 1_000
        }
        let url = URL(fileURLWithPath: file)
        let started = Date()
        for round in 0..<400 {
            let player = try Player(contentsOf: url)
            try player.prepareToPlay(clientName: "close", server: server.name, outputs: .none, bufferSeconds: 0.1)
            try player.play()
            // A seek: the reader refills the rings (64 channels) and then watches the ports'
            // connections; the close comes a little later each round, so across the rounds it
            // meets the reader at every point of that.
            player.currentFrame = Int64(round * 37 % 4_800)
            usleep(UInt32(round % 25) * 200)
            player.close()
            XCTAssertEqual(player.clientName, nil, "round \(round): closed")
        }
        print("note: 400 closes in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    /// Closes its player when told playing finished: on the player's own reader, mid-round.
    final class ClosingDelegate: PlayerDelegate {
        func playerDidFinishPlaying(_ player: Player, successfully: Bool) { player.close() }
    }

    /// A delegate may close the player from its callback, on the reader's own thread: the host
    /// does not wait for that thread (it is the one closing), and the reader frees the process
    /// state only when its round is over, so the rest of the round never touches freed memory.
    func testADelegateClosesThePlayerFromItsCallback() throws {
        let file = try writeFloatFile("short.wav", channels: 2, frames: 2_400) { frame, channel in
            Float((frame + channel) % 50) / 1_000
        }
        for round in 0..<20 {
            let player = try Player(contentsOf: URL(fileURLWithPath: file))
            let delegate = ClosingDelegate()
            player.delegate = delegate
            try player.prepareToPlay(clientName: "selfclose", server: server.name, outputs: .none, bufferSeconds: 0.1)
            try player.play()
            try Self.waitFor("round \(round): closed by its delegate") { player.clientName == nil }
        }
    }
}
