import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// A source's client crashing (kill -9) mid-take: its track records silence from there on, jcap
/// says where (the JACK frame and take frame the silence begins on),
/// and the take goes on to its end, every other track untouched. The server notices
/// the dead client within a cycle or two (often as an xrun, whose period jcap reports lost).
final class SourceCrashTests: JackTestCase {
    func testACrashedSourceRecordsSilenceFromWhereJcapSaysAndTheTakeGoesOn() throws {
        let crashing = try Subprocess(try Executables.built("jcap-testsignal"), ["play", "--channels", "1", "--name", "crashing"],
                                      server: server.name, directory: directory)
        try Self.waitFor("the crashing client's port") { observer.audioOutputPorts().contains("crashing:out_1") }
        let session = path("crash.toml")
        try ("[session]\nname = \"crash\"\nformat = \"wav\"\nbit_depth = \"float\"\n\n"
            + "[[track]]\nname = \"Steady\"\nsource = \"sig:out_1\"\n\n[[track]]\nname = \"Crashing\"\nsource = \"crashing:out_1\"\n")
            .write(toFile: session, atomically: true, encoding: .utf8)
        let jcap = try launchJcap(["session", session, "--for", "3s", "--meter", "none", "-v"])
        try Self.waitFor("take 1") { jcap.errorOutput.contains("recording take 1") }
        usleep(1_000_000)
        let killedAfter = observer.estimatedFrameTime
        crashing.signal(SIGKILL)
        _ = try? crashing.wait(timeout: 10)
        let status = try jcap.wait(timeout: 30)
        let errors = jcap.errorOutput
        // Frames lost (3) when the server's wait for the dead client cost a period: reported.
        XCTAssertTrue([ExitStatus.success.rawValue, ExitStatus.lostFrames.rawValue].contains(status), errors)
        let said = try XCTUnwrap(number(after: "channel 2: crashing:out_1 disconnected at JACK frame ", in: errors), errors)
        let saidPosition = try XCTUnwrap(number(after: "disconnected at JACK frame \(said) (take frame ", in: errors), errors)

        let entry = try XCTUnwrap(try TakeLog(folder: path("crash")).entries().first)
        XCTAssertEqual(entry.frames, 144_000, "the take goes on to its end: \(errors)")
        // The take log keeps it, where jcap said it.
        XCTAssertEqual(entry.patching, [TakeLogPatch(position: Int64(saidPosition), track: "Crashing", source: "crashing:out_1",
                                                     connected: false, exact: true)])
        XCTAssertTrue([.complete, .framesLost].contains(entry.status), "\(entry.status)")
        let lost = entry.lost.map { LostSpan(position: $0.position, frames: $0.frames) }
        let start = signalTime(try XCTUnwrap(entry.startFrame))

        let steady = TestSignalReport.check(file: try SoundFile.open(readingFrom: path("crash/take-001-Steady.wav")), signalChannels: [0])
        XCTAssertEqual(steady.frames, 144_000)
        XCTAssertEqual(steady.silentSpans, lost, "the other track: silence only where frames were reported lost: \(steady)")
        XCTAssertEqual(steady.wrongSamples, 0, "\(steady)")
        XCTAssertEqual(steady.firstFrameTime, start)

        // The crashed track: the signal at its true position up to the crash, silence from there
        // to the end, its start where jcap said (within the cycles the server took to notice).
        let crashed = TestSignalReport.check(file: try SoundFile.open(readingFrom: path("crash/take-001-Crashing.wav")), signalChannels: [0])
        XCTAssertEqual(crashed.frames, 144_000)
        XCTAssertEqual(crashed.firstFrameTime, start, "\(crashed)")
        XCTAssertEqual(crashed.wrongSamples, 0, "\(crashed)")
        let silence = try XCTUnwrap(crashed.silentSpans.last, "\(crashed)")
        XCTAssertEqual(silence.position + silence.frames, 144_000, "silent to the end: \(crashed)")
        // Silence before the crash is only the reported lost spans; the last run may begin in one.
        let lostBefore = lost.filter { $0.position < silence.position }
        XCTAssertEqual(Array(crashed.silentSpans.dropLast()), lostBefore, "\(crashed); lost \(lost)")
        // Where the silence begins, on JACK's clock: after the kill (the cycle it came in at the
        // earliest), and no later than the cycle after the frame jcap reported (the server tells
        // its clients once it has removed the client; the next cycle runs without it).
        let period = server.period
        // (A period the server lost noticing the crash is silence too, reported lost: the run
        // begins there.)
        let silentFrom = FrameTime.advance(try XCTUnwrap(entry.startFrame), by: Int(silence.position))
        XCTAssertGreaterThanOrEqual(FrameTime.distance(from: killedAfter, to: silentFrom), -period,
                                    "silent from JACK frame \(silentFrom), killed after \(killedAfter)")
        // jcap says the frame the silence begins on, exactly: the cycle its port's buffer changed
        // in, or, when the server lost a period noticing the crash, the first after that span.
        if let lostFirst = lost.first(where: { $0.position == silence.position }) {
            XCTAssertEqual(Int64(saidPosition), lostFirst.position + lostFirst.frames, "\(errors); lost \(lost)")
        } else {
            XCTAssertEqual(Int64(saidPosition), silence.position, "silent from take frame \(silence.position): \(errors)")
            XCTAssertEqual(UInt32(truncatingIfNeeded: said), silentFrom, "silent from JACK frame \(silentFrom): \(errors)")
        }
        XCTAssertGreaterThan(silence.position, 24_000, "the signal up to the crash")
    }
}
