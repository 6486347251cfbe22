import Foundation
import XCTest
@testable import JackCapture
import jcap

/// A source client with hundreds of ports of long names quitting mid-take: every track's
/// disconnection is told, on its frame. The server announces them faster than the event pump's
/// round; a fixed 64 KiB ring lost the ones past it (55 of 1024 with 58-byte names, release
/// build). Long periods: a debug build copies 450 channels within them.
final class ManySourcesQuittingTests: JackTestCase {
    override class var period: Int { 4_096 }

    func testAClientWithManyLongNamedPortsQuittingIsToldForEveryTrack() throws {
        let count = 450
        let many = try JackClient(name: "manylong", server: server.name)
        var closed = false
        defer { if !closed { many.close() } }
        // 288 bytes an announcement (the record and a 256-byte name): 130 KB for all of them. With
        // a 64 KiB ring, 344, 424 and 374 of the 450 were told.
        let stem = String(repeating: "n", count: 242)
        for index in 1...count { _ = try many.registerAudioOutput(named: "\(stem)_\(String(format: "%03d", index))") }
        // A client activated without a process callback stalls the server's graph (jackd 1.9.21).
        let argument = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        defer { argument.deallocate() }
        many.setProcessCallback({ _, _ in 0 }, argument: argument)
        try many.activate()
        let jcap = try launchJcap(["--port", "manylong:*", "--for", "6s", "--meter", "none", "--buffer", "2s", "-o", "many.wav"])
        // Recording: the file has grown past its first second (450 channels of 24-bit samples).
        try Self.waitFor("the take's first second on disk", timeout: 30) {
            ((try? FileManager.default.attributesOfItem(atPath: path("many.wav")))?[.size] as? Int ?? 0) > count * 3 * 48_000
        }
        many.close()
        closed = true
        let status = try jcap.wait(timeout: 30)
        let errors = jcap.errorOutput
        let told = errors.split(separator: "\n").filter { $0.contains(" disconnected at ") }
        XCTAssertEqual(told.count, count, "every track told, on its frame: \(errors.suffix(600))")
        let channels = Set(told.compactMap { line in line.range(of: "channel ").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) } })
        XCTAssertEqual(channels, Set(1...count))
        XCTAssertTrue([ExitStatus.success.rawValue, ExitStatus.lostFrames.rawValue].contains(status), errors.suffix(400).description)
    }
}
