import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// Recording on a NetJACK2 slave, against real jackd servers (tools/netjack): every frame the
/// master sent is in the file, at one offset for the whole take, nothing lost or repeated, checked
/// sample by sample; a take started at once starts where the master's audio begins.
final class NetJackRecordingTests: NetJackTestCase {
    func testEightChannelsAt1024FramePeriods() throws { try recordEveryFrame(period: 1_024, channels: 8) }
    func testSixtyFourChannelsAt1024FramePeriods() throws { try recordEveryFrame(period: 1_024, channels: 64) }
    func testEightChannelsAt256FramePeriods() throws { try recordEveryFrame(period: 256, channels: 8) }
    func testSixtyFourChannelsAt256FramePeriods() throws { try recordEveryFrame(period: 256, channels: 64) }

    /// Two takes on one link, each by a jcap of its own started as the one before exits: the
    /// second's ports are connected again, and in the cycle that connection takes effect the
    /// slave's capture ports still hold the last period the first take's connection filled them
    /// with, followed by the link's silence for a round trip. The second take, started at once,
    /// begins after both, on the master's audio, like the first.
    func testATakeRightAfterAnotherStartsOnTheMastersAudio() throws {
        // 1024-frame periods: at 256, late copies came in most attempts, and two takes an attempt.
        try onNewLink(period: 1_024, channels: 8) {
            try recordAtOnce(period: 1_024, channels: 8, file: "first.wav")
            try recordAtOnce(period: 1_024, channels: 8, file: "second.wav")
        }
    }

    /// `--at +20ms` counts from when jcap is ready, and ready includes the link carrying the
    /// master's audio: the take begins 20 ms after that, on the master's audio. (It began on the
    /// link's silence, 33 to 165 frames of it in 6 of 6 takes at 256-frame periods, exit 0,
    /// when the 20 ms counted from the connect call.)
    func testATakeAskedForAFewMillisecondsAheadStartsOnTheMastersAudio() throws {
        try onNewLink(period: 1_024, channels: 8) {
            try recordAtOnce(period: 1_024, channels: 8, file: "take.wav", starting: ["--at", "+20ms"])
        }
    }

    /// A 2-second take started at once (no --at) on the slave right after the master's signal was
    /// patched in: the file's first frame is already the master's audio (no start-up silence),
    /// and frame p of the file is the master's frame (start + p + D) on every channel, where D,
    /// the master's frame time less the slave's, is a whole number of periods. A loaded machine
    /// changes nothing in what is checked: every sample is the signal in place or inside a span
    /// jcap reported (late copies, xruns on the slave), or past a step the master's own xruns
    /// account for (`verifySlaveTake`).
    private func recordEveryFrame(period: Int, channels: Int) throws {
        try onNewLink(period: period, channels: channels) {
            try recordAtOnce(period: period, channels: channels, file: "take.wav")
        }
    }

    /// One take of `recordEveryFrame`, into `file`; `starting`: options for its start (none: at once).
    private func recordAtOnce(period: Int, channels: Int, file: String, starting: [String] = []) throws {
        let take = try recordOnSlave(["--channels", "1-\(channels)", "--for", "2s"] + starting, file: file)
        let account = take.account
        XCTAssertTrue(take.errors.contains("NetJACK2 slave"), take.errors)
        XCTAssertEqual(((take.linkOffset % period) + period) % period, 0,
                       "\(file): the master's frame time less the slave's is \(take.linkOffset) frames, not a whole number of \(period)-frame periods")
        let dropouts = try reportedDropouts(take.output)
        XCTAssertEqual(take.status, exitStatus(reporting: account, dropouts: dropouts), take.errors)
        // A master that stalls stops the slave's callbacks as a link down does, and jcap's
        // estimate from their times reports it as a dropout (docs/netjack.md): only then.
        if take.xruns.master == 0 { XCTAssertEqual(dropouts, [], "no link dropout on a link that stayed up") }
        if take.xruns.slave == 0 { XCTAssertEqual(account.lostSpans, [], "frames lost with no xrun on the slave") }
        let (verification, steps) = verifySlaveTake(account, masterXruns: take.xruns.master)
        XCTAssertTrue(verification.isAccountedFor, "\(verification); xruns: \(take.xruns)")
        XCTAssertEqual(verification.checkedSamples, 96_000 * Int64(channels))
        if !account.reportsNoTrouble || take.xruns != (0, 0) {
            print("note: \(name), \(file): \(take.xruns.master) master and \(take.xruns.slave) slave xruns; "
                + "steps with the master's clock: \(steps); \(verification)")
        }
    }
}
