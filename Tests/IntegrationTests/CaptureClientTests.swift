import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// One JACK client records take after take: its ports are registered and connected once, every
/// take is checked sample by sample, and the meters run between takes.
final class CaptureClientTests: JackTestCase {
    func testOneClientRecordsTakeAfterTakeOnTheSamePorts() throws {
        let (reports, files) = try { () -> ([TakeReport], [TestSignalReport]) in
            var configuration = CaptureConfiguration()
            configuration.serverName = server.name
            configuration.clientName = "takes"
            configuration.sources = .ports((1...4).map { "sig:out_\($0)" })
            configuration.takeDirectory = directory
            let client = try CaptureClient(configuration: configuration)
            defer { client.close() }
            client.isMeteringEnabled = true
            let ports = client.portNames
            var reports: [TakeReport] = []

            // 1: now, for 24,000 frames.
            let first = try client.makeTake()
            XCTAssertThrowsError(try client.makeTake()) { XCTAssertEqual($0 as? CaptureError, .alreadyStarted) }
            try first.start(atFrame: nil, lengthFrames: 24_000)
            reports.append(try XCTUnwrap(first.waitUntilFinished(timeout: 20)))

            // Between takes the meters still run.
            usleep(300_000)
            client.meters.update()
            XCTAssertGreaterThan(client.meters.peakPower(forChannel: 0), -60, "meters run with no take recording")

            // 2: at a frame a little ahead, for 12,345 frames.
            let second = try client.makeTake()
            let start = FrameTime.advance(client.jack.estimatedFrameTime, by: 9_600)
            try second.start(atFrame: start, lengthFrames: 12_345)
            reports.append(try XCTUnwrap(second.waitUntilFinished(timeout: 20)))
            XCTAssertEqual(reports[1].startFrame, start)

            // 3: paused and resumed on exact frames, then stopped.
            let third = try client.makeTake()
            let from = FrameTime.advance(client.jack.estimatedFrameTime, by: 4_800)
            try third.start(atFrame: from, lengthFrames: nil)
            third.pause(atFrame: FrameTime.advance(from, by: 10_000))
            usleep(400_000)
            third.resume(atFrame: FrameTime.advance(from, by: 30_000))
            try Self.waitFor("the resume") { third.events.contains { if case .resumed = $0 { true } else { false } } }
            usleep(200_000)
            reports.append(third.finish())

            XCTAssertEqual(client.portNames, ports, "the same ports for every take")
            XCTAssertEqual(client.engine.connectionCounts(), [1, 1, 1, 1], "connected once, still connected")
            return (reports, try reports.map { try check(URL(fileURLWithPath: $0.path).lastPathComponent) })
        }()
        // Each take checked against what it reported: complete, every sample in place, unless the
        // server disturbed it and it said where.
        let accounts = try reports.map { try account(of: $0) }
        XCTAssertEqual(reports.map(\.outcome), accounts.map(outcome(reporting:)))
        for account in accounts { assertAccountedFor(account) }
        XCTAssertEqual(Set(reports.map(\.path)).count, 3, "a file of its own for each take")
        XCTAssertEqual(reports.map { URL(fileURLWithPath: $0.path).lastPathComponent },
                       ["take-001.wav", "take-002.wav", "take-003.wav"])
        XCTAssertEqual(files[0].frames, 24_000)
        XCTAssertEqual(files[1].frames, 12_345)
        // The third: 10,000 frames, then from 30,000 frames after its start on, with no gap.
        XCTAssertEqual(accounts[2].pauses, [.init(position: 10_000, skippedFrames: 20_000)])
        for (report, file) in zip(reports, files) {
            XCTAssertEqual(report.frames, file.frames, "the report counts the file's frames")
        }
    }

    /// A connection takes effect at the start of a later cycle, and in that cycle a hardware
    /// driver has not filled a capture port that had no connection: it holds the last period it
    /// was filled with, maybe a take ago. So a client knows the frame its inputs carry their
    /// sources' audio from, and no take begins before it: a frame named before it is refused,
    /// saying so, and a take asked for at once begins at or after it.
    func testNoTakeBeginsBeforeTheInputsCarryTheirSourcesAudio() throws {
        let (report, carriesFrom) = try { () -> (TakeReport, UInt32) in
            var configuration = CaptureConfiguration()
            configuration.serverName = server.name
            configuration.clientName = "settle"
            configuration.sources = .ports(["sig:out_1", "sig:out_2"])
            configuration.takeDirectory = directory
            let client = try CaptureClient(configuration: configuration)
            defer { client.close() }
            let carriesFrom = try XCTUnwrap(client.inputsCarryFrom, "a client that connected its ports")
            let take = try client.makeTake()
            let named = FrameTime.advance(carriesFrom, by: -1)
            XCTAssertThrowsError(try take.start(atFrame: named, lengthFrames: 4_800)) { error in
                guard case .startInPast(let text)? = error as? CaptureError else { return XCTFail("\(error)") }
                XCTAssertTrue(text.contains("frame \(named) (the inputs carry their sources' audio from frame \(carriesFrom))"), text)
            }
            try take.start(atFrame: nil, lengthFrames: 4_800)
            return (try XCTUnwrap(take.waitUntilFinished(timeout: 20)), carriesFrom)
        }()
        let start = try XCTUnwrap(report.startFrame)
        XCTAssertGreaterThanOrEqual(FrameTime.distance(from: carriesFrom, to: start), 0,
                                    "started at \(start), before the inputs carried audio (\(carriesFrom))")
        let account = try account(of: report)
        XCTAssertEqual(report.outcome, outcome(reporting: account))
        assertAccountedFor(account)
    }

    /// A client that connects nothing (`--no-connect`) has no such frame: its ports count from
    /// its start, patched by hand whenever.
    func testAClientThatConnectsNothingWaitsForNothing() throws {
        var configuration = CaptureConfiguration()
        configuration.serverName = server.name
        configuration.clientName = "unpatched"
        configuration.sources = .ports(["sig:out_1"])
        configuration.connectsPorts = false
        configuration.takeDirectory = directory
        let client = try CaptureClient(configuration: configuration)
        defer { client.close() }
        XCTAssertNil(client.inputsCarryFrom)
    }
}
