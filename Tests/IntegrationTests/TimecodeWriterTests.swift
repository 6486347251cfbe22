import Foundation
import XCTest
@testable import JackCapture
import jcap

/// `jcap timecode` on a private dummy server, recorded by plain jcap: every frame of the file
/// carries the frame time jcap says it recorded it at.
final class TimecodeWriterTests: JackTestCase {
    /// Starts `jcap timecode` with `arguments` and waits for its line.
    private func launchTimecode(_ arguments: [String] = []) throws -> Subprocess {
        let timecode = try launchJcap(["timecode"] + arguments)
        try Self.waitFor("jcap timecode's line", saying: { timecode.errorOutput }) {
            timecode.errorOutput.contains("jcap timecode: ")
        }
        return timecode
    }

    private func stop(_ timecode: Subprocess, with signal: Int32 = SIGTERM) throws -> Int32 {
        timecode.signal(signal)
        return try timecode.wait(timeout: 10)
    }

    func testEveryPeriodOfARecordingDecodesToTheFrameItWasRecordedAt() throws {
        let timecode = try launchTimecode()
        defer { _ = try? stop(timecode) }
        XCTAssertEqual(timecode.errorOutput.split(separator: "\n").count, 1, timecode.errorOutput)
        XCTAssertTrue(timecode.errorOutput.hasPrefix("jcap timecode: the master's frame time on jcap-timecode:out, not connected"),
                      timecode.errorOutput)
        // The writer and the recorder share this server's clock: an xrun skips frames for both,
        // and the recorder then fills them with silence, which is no timecode. Periods the
        // recording reported are passed over.
        let jcap = try launchJcap(["--port", "jcap-timecode:out", "--for", "1s", "--format", "float", "-o", "tc.wav",
                                   "--meter", "json", "--overwrite"])
        let status = try jcap.wait(timeout: 30)
        let account = try summaryAccount(jcap.output, signalChannel: { _ in 0 })
        XCTAssertEqual(status, exitStatus(reporting: account), jcap.errorOutput)
        let reported = account.lostSpans + account.lateCopySpans + account.uncertainSpans
        let start = account.startFrame
        let file = try SoundFile.open(readingFrom: path("tc.wav"))
        XCTAssertEqual(file.channels, 1)
        var samples = [Float](repeating: 0, count: Int(file.frames))
        let read = samples.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: $0.count) }
        XCTAssertEqual(read, server.sampleRate, "1 s of frames")
        // Period by period, and the whole take at once.
        var position = 0
        var checked = 0
        while position < read {
            let count = min(server.period, read - position)
            defer { position += count }
            guard !reported.contains(where: { $0.position < Int64(position + count) && Int64(position) < $0.position + $0.frames }) else { continue }
            let decoded = samples[position..<(position + count)].withUnsafeBufferPointer {
                MasterTimecode.firstFrameTime(of: $0.baseAddress!, count: count)
            }
            XCTAssertEqual(decoded, start &+ UInt32(position), "the period at take position \(position); \(account)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, read / server.period / 2, "most periods checked: \(account)")
        if reported.isEmpty {
            let whole = samples.withUnsafeBufferPointer { MasterTimecode.firstFrameTime(of: $0.baseAddress!, count: read) }
            XCTAssertEqual(whole, start, "every frame of the take, each at its own frame time")
        } else {
            print("note: \(name): \(checked) periods checked against \(account)")
        }
        XCTAssertEqual(try stop(timecode, with: SIGINT), 0, timecode.errorOutput)
    }

    func testItConnectsWhereToldAndStopsOnSIGTERM() throws {
        let timecode = try launchTimecode(["--name", "tc-connect", "--connect", "system:playback_1", "--connect", "system:playback_*"])
        XCTAssertEqual(timecode.errorOutput, "jcap timecode: the master's frame time on tc-connect:out -> system:playback_1, "
                       + "system:playback_2 (on the slave: jcap --master-clock PORT ..., PORT the slave's capture port it arrives on)\n")
        let port = try observer.port(named: "tc-connect:out")
        XCTAssertEqual(Set(observer.connections(of: port)), ["system:playback_1", "system:playback_2"])
        XCTAssertEqual(try stop(timecode), 0, timecode.errorOutput)
        XCTAssertFalse(observer.audioOutputPorts().contains("tc-connect:out"), "the client closed")
    }

    func testBadInputGetsOneLineAndItsOwnStatus() throws {
        let cases: [(arguments: [String], status: ExitStatus, says: String)] = [
            (["--connect", "nowhere:in"], .unknownSource,
             "jcap: error: bad --connect 'nowhere:in': no JACK input port matches it (a slave's link inputs are named like slave1:to_slave_1)"),
            (["--connect", "sig:out_1"], .unknownSource, "jcap: error: bad --connect 'sig:out_1': no JACK input port matches it"),
            (["--name", "a:b"], .usage, "jcap: error: bad --name 'a:b'"),
            (["--server", "jcaptest-no-such-server"], .noServer, "jcap: error: no JACK server named 'jcaptest-no-such-server' is running"),
        ]
        for (arguments, status, says) in cases {
            let run = try runJcap(["timecode"] + arguments, timeout: 20)
            XCTAssertEqual(run.status, status.rawValue, "\(arguments): \(run.errors)")
            XCTAssertTrue(run.errors.hasPrefix(says), "\(arguments): \(run.errors)")
            XCTAssertEqual(run.errors.split(separator: "\n").count, 1, "\(arguments): \(run.errors)")
        }
        XCTAssertFalse(observer.audioOutputPorts().contains { $0.hasPrefix("jcap-timecode") }, "nothing left registered")
    }
}

/// The server shuts down under `jcap timecode`: it says so in one line and exits 5. Its own class:
/// it stops its server.
final class TimecodeServerShutdownTests: JackTestCase {
    func testAServerThatShutsDownEndsItWithStatusFive() throws {
        let timecode = try launchJcap(["timecode"])
        try Self.waitFor("jcap timecode's line", saying: { timecode.errorOutput }) {
            timecode.errorOutput.contains("jcap timecode: ")
        }
        server.stop()
        let status = try timecode.wait(timeout: 20)
        XCTAssertEqual(status, ExitStatus.serverShutDown.rawValue, timecode.errorOutput)
        let lines = timecode.errorOutput.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, timecode.errorOutput)
        XCTAssertEqual(lines.last, "jcap: error: the JACK server shut down; no timecode goes out any more")
    }
}
