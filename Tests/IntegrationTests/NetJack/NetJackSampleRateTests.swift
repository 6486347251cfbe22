import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// A sample-rate change on a running server, for real: the master restarted at another rate
/// (`tools/netjack restart-master`), the slave's driver takes on the new rate and tells its
/// clients (jack2's JackNetDriver calls NotifySampleRate as it starts again). No other backend
/// here changes its rate while running; the library's own tests reach the handler through a hook.
final class NetJackSampleRateTests: NetJackTestCase {
    /// jcap recording on the slave stops the take, says so with both rates and exits 7 (measured
    /// before the fix: "changed from 44100 to 44100 Hz", and the file called "resampled from 44100
    /// to 48000 Hz": the report took the server's new rate for the take's). The file keeps the
    /// rate its frames were recorded at and holds exactly the frames the summary counts.
    func testAMasterRestartedAtAnotherRateStopsTheSlavesTakeAndSaysBothRates() throws {
        try onNewLink(period: 1_024, channels: 2) {
            let take = try recordOnSlave(["--channels", "1-2", "--for", "30s"], file: "rate.wav") {
                try JackTestCase.waitFor("the take to record a while", timeout: 20) { FileManager.default.fileExists(atPath: path("rate.wav")) }
                sleep(2)
                try link.restartMaster(rate: 44_100)
            }
            XCTAssertEqual(take.status, ExitStatus.sampleRateChanged.rawValue, take.errors)
            XCTAssertTrue(take.errors.contains("jcap: error: the JACK server's sample rate changed from 48000 to 44100 Hz"), take.errors)
            XCTAssertFalse(take.errors.contains("resampled"), "the file is at the rate it was recorded at: \(take.errors)")
            XCTAssertTrue(take.output.contains("\"sample_rate\":48000"), String(take.output.suffix(2_000)))
            let file = try SoundFile.open(readingFrom: path("rate.wav"))
            XCTAssertEqual(file.sampleRate, 48_000)
            XCTAssertEqual(file.channels, 2)
            XCTAssertEqual(file.frames, take.account.files.first?.frames, "the frames the summary counts")
            XCTAssertGreaterThan(file.frames, 0, "the take recorded until the change")
            XCTAssertLessThan(file.frames, 30 * 48_000, "and stopped there")
            // Every sample the master's signal in place or inside a span jcap reported: the slave's
            // capture ports go away with the master (reported as disconnected), so the periods
            // the take holds past the change are silence jcap said it would be, not sound at the
            // new rate. The master going away may step the file once against it, as a dropout.
            let (verification, steps) = verifySlaveTake(take.account, masterXruns: take.xruns.master + 1)
            XCTAssertTrue(verification.isAccountedFor, "\(verification); steps \(steps), xruns \(take.xruns)\n\(take.errors)")
            XCTAssertFalse(take.account.files.first?.unpatchedSpans.allSatisfy(\.isEmpty) ?? true,
                           "the slave's capture ports went away with the master: \(take.account)")
        }
    }

    /// `jcap play` on the slave stops where it is (its frames were made for the old rate), says
    /// so in one line and exits 7, before the file's end.
    func testAMasterRestartedAtAnotherRateStopsPlayingOnTheSlave() throws {
        try onNewLink(period: 1_024, channels: 2) {
            let file = path("tone.wav")
            let writer = try SoundFile.create(path: file, format: try RecordingSettings(format: .float).resolveFormat(forPath: file),
                                              channels: 1, sampleRate: 48_000, overwrite: false)
            let tone = (0..<48_000 * 30).map { Float($0 % 100) / 1_000 }
            try tone.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: $0.count) }
            try writer.close()
            let player = try Subprocess(try Executables.built("jcap"), ["play", file, "--no-connect"],
                                        server: link.slaves[0], directory: directory)
            try JackTestCase.waitFor("playing", timeout: 20) { player.errorOutput.contains("starting at JACK frame") }
            sleep(1)
            try link.restartMaster(rate: 44_100)
            let status = try player.wait(timeout: 30)
            XCTAssertEqual(status, ExitStatus.sampleRateChanged.rawValue, player.errorOutput)
            XCTAssertTrue(player.errorOutput.contains(
                "jcap: error: the server's sample rate changed to 44100 Hz: playing stopped (it would play at the wrong speed)"),
                player.errorOutput)
            XCTAssertFalse(player.errorOutput.contains("played to file frame \(tone.count)"), "stopped before the end: \(player.errorOutput)")
        }
    }
}
