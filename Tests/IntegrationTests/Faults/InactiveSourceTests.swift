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
        let jcap = try launchJcap(["--port", "late:out_1", "--for", "1s", "-o", "late.wav"])
        // The server logs each refusal: once jcap has been refused, the client activates.
        let refusal = "Cannot connect ports owned by inactive clients: \"late\" is not active"
        try Self.waitFor("the server's refusal of jcap's connection") {
            ((try? String(contentsOfFile: server.logPath, encoding: .utf8)) ?? "").contains(refusal)
        }
        try late.activate()
        XCTAssertEqual(try jcap.wait(timeout: 30), 0, jcap.errorOutput)
        XCTAssertEqual(try SoundFile.open(readingFrom: path("late.wav")).frames, 48_000, jcap.errorOutput)
    }
}
