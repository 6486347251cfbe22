import Foundation
@testable import JackCapture

/// A capture client and one take on it, as most integration tests record: the client's calls
/// (meters, ports) and the take's (start, pause, stop, finish) under one name.
final class OneTake {
    let client: CaptureClient
    let take: Take

    /// Opens the client as `configuration` says and prepares its take (`beforeEachBlockWritten`
    /// runs on the take's writer thread before each block: a deliberately slow disk).
    init(configuration: CaptureConfiguration, beforeEachBlockWritten: (@Sendable (Int64) -> Void)? = nil) throws {
        client = try CaptureClient(configuration: configuration)
        client.beforeEachBlockWritten = beforeEachBlockWritten
        take = try client.makeTake()
    }

    deinit { client.close() }

    var engine: CaptureEngine { client.engine }
    var jack: JackClient { client.jack }
    var status: CaptureStatus { take.status }
    var isFinished: Bool { take.isFinished }
    var isMeteringEnabled: Bool {
        get { client.isMeteringEnabled }
        set { client.isMeteringEnabled = newValue }
    }

    func start() throws { try take.start() }
    func start(atFrame frame: UInt32?, lengthFrames: Int64?) throws { try take.start(atFrame: frame, lengthFrames: lengthFrames) }
    func pause() { take.pause() }
    func resume() { take.resume() }
    func stop() { take.stop() }
    func finish() -> TakeReport { take.finish() }
    func takeEvents() -> [CaptureEvent] { take.takeEvents() }
    func reassign(sources: [String]) throws { try client.reassign(sources: sources) }
    func updateMeters() { client.meters.update() }
    func peakPower(forChannel channel: Int) -> Float { client.meters.peakPower(forChannel: channel) }
    func averagePower(forChannel channel: Int) -> Float { client.meters.averagePower(forChannel: channel) }
    func meterReading(forChannel channel: Int) -> MeterReading { client.meters.reading(forChannel: channel) }
}
