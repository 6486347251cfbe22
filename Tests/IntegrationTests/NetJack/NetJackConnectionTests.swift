import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// A hardware input patched again during a take, on a NetJACK2 slave, whose driver fills a capture
/// port only while it is connected, and before the graph switches, as jackd2's ALSA driver does.
final class NetJackConnectionTests: NetJackTestCase {
    /// The slave's `system:capture_2` is disconnected from jcap's channel 2 mid-take and connected
    /// again half a second later. jcap says both on their frames. From the disconnection the
    /// channel is silent. From the connection it holds first the last period the port was filled
    /// with before it was disconnected, then the link's silence for a round trip, then the master's
    /// audio. jcap says that the connection's first period may be older audio, and the file shows
    /// it there, to the frame.
    func testAHardwareInputPatchedAgainMidTakeIsPlacedOnItsFramesAndItsOlderPeriodSaid() throws {
        let period = 1_024
        try onNewLink(period: period, channels: 2) {
            let jcap = try Subprocess(try Executables.built("jcap"),
                                      ["--channels", "1,2", "--for", "3s", "--format", "float", "-o", "repatched.wav",
                                       "--meter", "json", "-v"], server: link.slaves[0], directory: directory)
            let patcher = try JackClient(name: "repatcher", server: link.slaves[0])
            defer { patcher.close() }
            try JackTestCase.waitFor("the take") { jcap.errorOutput.contains("recording") }
            let input = try patcher.port(named: "system:capture_2")
            let channel2 = try XCTUnwrap(patcher.connections(of: input).first, "jcap's channel 2")
            usleep(800_000)
            try patcher.disconnect("system:capture_2", from: channel2)
            usleep(500_000)
            try patcher.connect("system:capture_2", to: channel2)
            let status = try jcap.wait(timeout: 30)
            try checkSlaveServer(afterRunWithStatus: status)
            let errors = jcap.errorOutput
            // What jcap reported lost, late or uncertain (a loaded machine) is left out of the
            // checks below. Every check compares channel 2 with channel 1 of the same frame, so
            // a master's xrun, which moves both on the master's clock alike, changes none.
            let account = try slaveAccount(jcap.output, linkOffset: 0)
            XCTAssertEqual(status, exitStatus(reporting: account, dropouts: try reportedDropouts(jcap.output)), errors)
            let reported = account.lostSpans + account.lateCopySpans + account.uncertainSpans
            func unreported(_ frame: Int) -> Bool { !reported.contains { $0.position <= frame && frame < $0.position + $0.frames } }

            let silentFrom = try XCTUnwrap(number(after: "channel 2: system:capture_2 disconnected at JACK frame ",
                                                  then: "(take frame ", in: errors), errors)
            let connectedAt = try XCTUnwrap(number(after: "channel 2: system:capture_2 connected at JACK frame ",
                                                   then: "(take frame ", in: errors), errors)
            XCTAssertTrue(errors.contains("(take frame \(connectedAt)); its first \(period) frames may be that input's audio from before"),
                          errors)

            let file = try SoundFile.open(readingFrom: path("repatched.wav"))
            let frames = Int(file.frames)
            var samples = [Float](repeating: 0, count: frames * 2)
            _ = samples.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: frames) }
            /// The master's frame on channel `channel` at file frame `frame` (nil: not the signal).
            func master(_ frame: Int, _ channel: Int) -> Int? { TestSignal.frameTime(decoding: samples[frame * 2 + channel], channel: channel) }
            let from = Int(silentFrom), to = Int(connectedAt)
            XCTAssertGreaterThan(from, 0)
            XCTAssertGreaterThan(to, from + 12_000, "half a second apart")
            XCTAssertLessThan(to + 4 * period, frames)
            // Up to the disconnection: the master's audio, as on channel 1.
            let before = (0..<from).filter { unreported($0) && (master($0, 1) == nil || master($0, 1) != master($0, 0)) }
            XCTAssertEqual(before, [], "channel 2 is channel 1's master frames up to take frame \(from)")
            // From it to the connection: silence.
            let heard = (from..<to).filter { samples[$0 * 2 + 1] != 0 }
            XCTAssertEqual(heard.first, nil, "channel 2 silent from take frame \(from) to \(to)")
            // The connection's first period: the signal, but not the master's frame of that moment.
            let older = (to..<(to + period)).filter { unreported($0) }.map { master($0, 1) }
            XCTAssertEqual(older.compactMap { $0 }.count, older.count, "the period at take frame \(to) holds the input's last audio")
            XCTAssertNotEqual(master(to, 1), master(to, 0), "older audio, not the master's frame at take frame \(to)")
            // Then the link's silence and the master's audio to the end, nothing else.
            let resumed = try XCTUnwrap(((to + period)..<frames).first { samples[$0 * 2 + 1] != 0 }, "the signal comes back")
            XCTAssertTrue(((to + period)..<resumed).allSatisfy { samples[$0 * 2 + 1] == 0 })
            print("repatched: silent from \(from), connected at \(to), master audio again from \(resumed)")
            let after = (resumed..<frames).filter { unreported($0) && (master($0, 1) == nil || master($0, 1) != master($0, 0)) }
            XCTAssertEqual(after, [], "channel 2 is channel 1's master frames from take frame \(resumed)")
        }
    }

    /// `--no-connect`, patched by hand on a slave: the take begins once the last port is patched,
    /// past the period the input may still hold from before and the link's silence, on the
    /// master's audio. (It began on that silence, three periods of it, when a take started at
    /// once as soon as every port had a source.)
    func testAPortPatchedByHandStartsItsTakeOnTheMastersAudio() throws {
        try onNewLink(period: 1_024, channels: 2) {
            let mark = xrunMark()
            let jcap = try Subprocess(try Executables.built("jcap"),
                                      ["--no-connect", "--name", "patchme", "--channels", "1", "--for", "1s", "--format", "float",
                                       "-o", "patched.wav", "--meter", "json"], server: link.slaves[0], directory: directory)
            let patcher = try JackClient(name: "handpatcher", server: link.slaves[0])
            defer { patcher.close() }
            try JackTestCase.waitFor("jcap's port") { patcher.audioPorts(flags: .init(0)).contains("patchme:in_1") }
            usleep(300_000)
            try patcher.connect("system:capture_2", to: "patchme:in_1")
            let status = try jcap.wait(timeout: 30)
            try checkSlaveServer(afterRunWithStatus: status)
            let masterXruns = xruns(since: mark).master
            let file = try SoundFile.open(readingFrom: path("patched.wav"))
            XCTAssertEqual(file.frames, 48_000)
            var first: Float = 0
            _ = file.read(into: &first, frames: 1)
            let firstTime = try XCTUnwrap(TestSignal.frameTime(decoding: first, channel: 1),
                                          "the take's first frame is the master's audio, not \(first)")
            // Every frame the master's, in order, by what jcap and the master's xruns reported.
            let startFrame = try XCTUnwrap(number(after: "\"start_frame\":", in: jcap.output), jcap.errorOutput)
            var account = try slaveAccount(jcap.output, linkOffset: signalDistance(from: Int(startFrame) % TestSignal.timeModulus, to: firstTime))
            account.files[0].signalChannels = [1]  // patched by hand from capture 2, not the channel's own capture 1
            XCTAssertEqual(status, exitStatus(reporting: account, dropouts: try reportedDropouts(jcap.output)), jcap.errorOutput)
            let (verification, steps) = verifySlaveTake(account, masterXruns: masterXruns)
            XCTAssertTrue(verification.isAccountedFor, "\(verification); \(masterXruns) master xruns, steps \(steps)")
        }
    }

    /// The number after `prefix`, then after `then`, on the same line of `text`.
    private func number(after prefix: String, then: String, in text: String) -> Int64? {
        guard let range = text.range(of: prefix) else { return nil }
        let line = text[range.upperBound...].prefix { $0 != "\n" }
        guard let next = line.range(of: then) else { return nil }
        return Int64(line[next.upperBound...].prefix { $0.isNumber })
    }
}
