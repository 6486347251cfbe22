import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// Two recorders told the same time of day (or date) start on the same frame: each decides the
/// frame in the cycle the moment falls in, from that cycle's times, which every client of the
/// server shares (`ClockStart`).
final class WallClockStartTests: JackTestCase {
    /// `HH:MM:SS.fff` (local) and `YYYY-MM-DDTHH:MM:SS.fffZ` for a moment `ahead` seconds from now,
    /// on a millisecond.
    func moment(secondsAhead ahead: Double) -> (timeOfDay: String, utc: String) {
        let target = (WallClockTime.nowMicrosecondsSinceEpoch() + Int64(ahead * 1_000_000)) / 1_000 * 1_000
        var seconds = time_t(target / 1_000_000)
        var local = tm()
        localtime_r(&seconds, &local)
        var utc = tm()
        gmtime_r(&seconds, &utc)
        let milliseconds = Int(target % 1_000_000) / 1_000
        return (String(format: "%02d:%02d:%02d.%03d", local.tm_hour, local.tm_min, local.tm_sec, milliseconds),
                String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                       utc.tm_hour, utc.tm_min, utc.tm_sec, milliseconds))
    }

    /// Starts two jcap processes `apart` seconds apart, both told to start at a moment `ahead`
    /// seconds from now (written by `forms` for each: a time of day, a date), and returns the
    /// moment as written and, for each, the JACK frame it started on (from its report) and its
    /// file's first test-signal frame (every sample checked against what jcap reported, so a take
    /// an xrun disturbed after its start is judged, not repeated).
    /// Repeated when the server had an xrun before both had started: the subject is the start
    /// frame the two decide apart, from the cycle times an xrun moves. With `xrunsCountFrom`,
    /// only xruns from that many seconds before the moment count: each recorder decides in the
    /// cycle the moment falls in from times every client shares, so only an xrun around it (a
    /// recorder's callback skipped in that cycle) can set them apart.
    func twoRecorders(secondsAhead ahead: Double, apart: Double, xrunsCountFrom: Double? = nil,
                      _ forms: ((timeOfDay: String, utc: String)) -> (String, String) = { ($0.timeOfDay, $0.timeOfDay) })
        throws -> (at: String, starts: [(reported: Int64, inFile: Int)]) {
        try withoutXruns {
            for file in ["a.wav", "b.wav"] { try? FileManager.default.removeItem(atPath: path(file)) }
            let launched = WallClockTime.nowMicrosecondsSinceEpoch()
            let (first, second) = forms(moment(secondsAhead: ahead))
            let a = try launchJcap(signalPorts(2) + ["--at", first, "--for", "2400f", "-o", "a.wav", "--meter", "json", "-v"])
            usleep(useconds_t(apart * 1_000_000))
            let b = try launchJcap(signalPorts(2) + ["--at", second, "--for", "2400f", "-o", "b.wav", "--meter", "json", "-v"])
            if let before = xrunsCountFrom {
                let opening = launched + Int64((ahead - before) * 1_000_000) - WallClockTime.nowMicrosecondsSinceEpoch()
                if opening > 0 { usleep(useconds_t(opening)) }
                openXrunWindow()
            }
            // Once the moment has passed (and a period more), xruns no longer bear on the start.
            let started = launched + Int64((ahead + 0.2) * 1_000_000)
            let wait = started - WallClockTime.nowMicrosecondsSinceEpoch()
            if wait > 0 { usleep(useconds_t(wait)) }
            closeXrunWindow()
            _ = try a.wait(timeout: 30)
            _ = try b.wait(timeout: 30)
            return (first, try [(a, "a.wav"), (b, "b.wav")].map { process, file in
                let account = try summaryAccount(process.output)
                XCTAssertEqual(try process.wait(), exitStatus(reporting: account), process.errorOutput)
                let reported = try XCTUnwrap(number(after: "JACK frames ", in: process.errorOutput), process.errorOutput)
                XCTAssertEqual(try check(file).frames, 2_400)
                assertAccountedFor(account, file)
                return (reported, signalTime(account.startFrame))
            })
        }
    }

    func testTwoProcessesToldOneTimeOfDayStartOnTheSameFrame() throws {
        for trial in 1...3 {
            let (at, starts) = try twoRecorders(secondsAhead: 1.8, apart: 0.5)
            XCTAssertEqual(starts[0].reported, starts[1].reported, "trial \(trial), --at \(at)")
            XCTAssertEqual(starts[0].inFile, starts[1].inFile, "trial \(trial): the files begin on the same frame")
            XCTAssertEqual(starts[0].inFile, signalTime(UInt32(truncatingIfNeeded: starts[0].reported)))
        }
    }

    func testOneStartedAMomentBeforeTheTimeStillAgrees() throws {
        // The second is launched about 0.35 s before the moment: it has just time to get ready.
        let (at, starts) = try twoRecorders(secondsAhead: 1.6, apart: 1.25)
        XCTAssertEqual(starts[0].reported, starts[1].reported, "--at \(at)")
        XCTAssertEqual(starts[0].inFile, starts[1].inFile)
    }

    func testADateInUTCAndTheSameMomentAsATimeOfDayAgree() throws {
        // Repeated only on an xrun from 0.2 s before the moment: one then can make a recorder decide a cycle late.
        let (at, starts) = try twoRecorders(secondsAhead: 1.8, apart: 0.4, xrunsCountFrom: 0.2) { ($0.utc, $0.timeOfDay) }
        XCTAssertEqual(starts[0].reported, starts[1].reported, "\(at) and the same time of day")
    }

    func testAStartTimeOfDayNamesTheFrameOfThatMomentOnJacksClock() throws {
        // The frame is the first at or after the moment, by the server's own clock estimate: the
        // observer's conversion of the same moment (jack_time_to_frames, a moment later) is
        // within a period of it.
        var expected: UInt32 = 0
        var text = ""
        // Repeated when the server had an xrun before the start: the subject is the frame the
        // server's clock estimate gives a moment, which an xrun moves.
        let (run, account) = try withoutXruns { () -> ((status: Int32, errors: String), TakeAccount) in
            try? FileManager.default.removeItem(atPath: path("wall.wav"))
            let now = WallClockTime.nowMicrosecondsSinceEpoch()
            let target = (now / 1_000 + 1_500) * 1_000
            text = moment(secondsAhead: Double(target - now) / 1_000_000).timeOfDay
            let exact = try StartTime(parsing: text).wallClockMicroseconds()!
            expected = observer.frameTime(atMicroseconds: JackClient.currentTimeMicroseconds
                + UInt64(exact - WallClockTime.nowMicrosecondsSinceEpoch()))
            let jcap = try launchJcap(signalPorts(2) + ["--at", text, "--for", "0.1s", "-o", "wall.wav", "--meter", "json", "-v"])
            let wait = target + 200_000 - WallClockTime.nowMicrosecondsSinceEpoch()
            if wait > 0 { usleep(useconds_t(wait)) }
            closeXrunWindow()
            let status = try jcap.wait()
            return ((status, jcap.errorOutput), try summaryAccount(jcap.output))
        }
        XCTAssertEqual(run.status, exitStatus(reporting: account), run.errors)
        XCTAssertTrue(run.errors.contains("starting at "), run.errors)
        XCTAssertEqual(try check("wall.wav").frames, 4_800)
        assertAccountedFor(account)
        let started = try XCTUnwrap(number(after: "JACK frames ", in: run.errors), run.errors)
        XCTAssertEqual(account.startFrame, UInt32(started))
        let difference = abs(FrameTime.distance(from: expected, to: UInt32(started)))
        XCTAssertLessThan(difference, server.period, "\(text) should be near JACK frame \(expected)")
    }

    func testADateTomorrowIsScheduledAndATimeThatPassedIsRefused() throws {
        // Tomorrow is beyond what JACK's 32-bit frame clock could count at 48 kHz from some
        // times of day; it is scheduled all the same, and cancelled here with SIGINT.
        let tomorrow = WallClockTime.nowMicrosecondsSinceEpoch() / 1_000_000 + 86_400 + 3_600
        var seconds = time_t(tomorrow)
        var utc = tm()
        gmtime_r(&seconds, &utc)
        let text = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                          utc.tm_hour, utc.tm_min, utc.tm_sec)
        let jcap = try launchJcap(signalPorts(1) + ["--at", text, "-o", "tomorrow.wav"])
        try Self.waitFor("jcap to schedule the take") { jcap.errorOutput.contains("starting at ") }
        jcap.signal(SIGINT)
        XCTAssertEqual(try jcap.wait(timeout: 20), ExitStatus.cancelled.rawValue, jcap.errorOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("tomorrow.wav")), "a take cancelled before it starts leaves no file")

        let passed = WallClockTime.nowMicrosecondsSinceEpoch() / 1_000_000 - 60
        seconds = time_t(passed)
        gmtime_r(&seconds, &utc)
        let past = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                          utc.tm_hour, utc.tm_min, utc.tm_sec)
        // A minute ago, in UTC.
        let run = try runJcap(signalPorts(1) + ["--at", past + "Z", "-o", "past.wav"])
        XCTAssertEqual(run.status, ExitStatus.startInPast.rawValue, run.errors)
        XCTAssertTrue(run.errors.contains(past), run.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("past.wav")))
    }
}
