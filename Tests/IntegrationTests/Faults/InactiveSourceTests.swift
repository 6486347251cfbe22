import Foundation
import XCTest
@testable import JackCapture

/// A source whose client has registered its port but is not active yet: jack2 refuses to connect
/// it ("Cannot connect ports owned by inactive clients"). jcap started in that moment (a session
/// manager starting every program at once, a player just launched) waits for the activation,
/// a bounded while, instead of exiting.
final class InactiveSourceTests: JackTestCase {
    func testASourceThatActivatesAfterJcapAsksIsConnectedAndRecorded() throws {
        let late = try JackClient(name: "late", server: server.name)
        defer { late.close() }
        _ = try late.registerAudioOutput(named: "out_1")
        // A client activated without a process callback stalls the server's graph (jackd 1.9.21).
        let argument = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        defer { argument.deallocate() }
        late.setProcessCallback({ _, _ in 0 }, argument: argument)
        let jcap = try launchJcap(["--port", "late:out_1", "--for", "1s", "-o", "late.wav", "--meter", "json"])
        // The server logs each refusal: once jcap has been refused, the client activates.
        let refusal = "Cannot connect ports owned by inactive clients: \"late\" is not active"
        try Self.waitFor("the server's refusal of jcap's connection") {
            ((try? String(contentsOfFile: server.logPath, encoding: .utf8)) ?? "").contains(refusal)
        }
        try late.activate()
        let status = try jcap.wait(timeout: 30)
        // Its status the one its report calls for (an xrun's lost frames: 3). `late` plays no test
        // signal, so the samples cannot be checked; the file holds the whole take, lost spans as
        // silence, and every span jcap reported lies inside it.
        let account = try summaryAccount(jcap.output)
        XCTAssertEqual(status, exitStatus(reporting: account), jcap.errorOutput)
        XCTAssertEqual(account.files.map(\.frames), [48_000], "\(account)")
        XCTAssertEqual(try SoundFile.open(readingFrom: path("late.wav")).frames, 48_000, jcap.errorOutput)
        for span in account.lostSpans + account.lateCopySpans + account.uncertainSpans {
            XCTAssertTrue(span.position >= 0 && span.position + span.frames <= 48_000, "\(span) outside the take: \(account)")
        }
        if !account.reportsNoTrouble { print("note: \(name): jcap reported trouble: \(account)") }
    }
}
