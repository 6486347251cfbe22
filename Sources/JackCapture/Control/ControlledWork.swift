import Foundation

/// What a `ControlCore` runs: a recording, a session or a playback. Each subclass carries out the
/// commands that apply to it and refuses the rest.
class ControlledWork {
    private var events: [ControlEvent] = []
    private(set) var isFinished = false

    func emit(_ event: ControlEvent) { events.append(event) }

    func takeEvents() -> [ControlEvent] {
        defer { events = [] }
        return events
    }

    /// How many events wait for `takeEvents()`; `events(from:)` gives those from one on.
    var pendingEventCount: Int { events.count }

    func events(from index: Int) -> ArraySlice<ControlEvent> { events[min(index, events.count)...] }

    /// Nothing more will happen.
    func finish() { isFinished = true }

    func start() {}

    func apply(_ command: ControlCommand, origin: ControlOrigin) -> ControlRefusal? { .finished }

    func update() {}

    func state() -> ControlState { ControlState(mode: .finished, sampleRate: 0) }

    func wait(upTo seconds: TimeInterval) {
        sleep(upTo: seconds)
    }

    final func sleep(upTo seconds: TimeInterval) {
        usleep(useconds_t(max(0, seconds) * 1_000_000))
    }

    /// Waits on `take` (returning as soon as it ends), or sleeps.
    final func wait(on take: Take?, upTo seconds: TimeInterval) {
        if let take, !take.isFinished { _ = take.waitUntilFinished(timeout: seconds) } else { sleep(upTo: seconds) }
    }

    /// `pause`, `resume` or `togglePause` of a recording's take, or why not.
    static func pauseOrResume(_ take: Take?, _ command: ControlCommand, stopping: Bool) -> ControlRefusal? {
        guard let take, !stopping else { return stopping ? .stopping : .nothingRunning(command) }
        let paused = take.state == .paused
        if command == .pause && paused { return .alreadyPaused }
        if command == .resume && !paused { return .notPaused }
        if paused { _ = take.resume() } else { _ = take.pause() }
        return nil
    }

    /// The state of a capture client's take, or of the client before one exists.
    static func captureState(client: CaptureClient, take: Take?, names: [String]) -> ControlState {
        let status = take?.status ?? client.engine.status
        var state = ControlState(mode: .waiting, sampleRate: client.sampleRate)
        switch status.phase {
        case .idle: state.framesToStart = 0
        case .waiting:
            var frames = take?.scheduledStart.map {
                Int64(max(0, FrameTime.distance(from: client.jack.estimatedFrameTime, to: $0)))
            } ?? 0
            if let start = take?.scheduledWallClockStart {
                let (ahead, overflow) = start.subtractingReportingOverflow(WallClockTime.nowMicrosecondsSinceEpoch())
                frames = FrameTime.frames(inMicroseconds: overflow ? (start > 0 ? .max : 0) : ahead, sampleRate: client.sampleRate)
            }
            state.framesToStart = frames
        case .recording: state.mode = .recording
        case .paused: state.mode = .paused
        case .finished, .missedStart: state.mode = .finished
        }
        state.position = status.position
        state.remainingFrames = take?.durationFrames.map { max(0, $0 - status.position) }
        state.bufferFill = status.bufferFill
        state.xruns = status.xruns
        state.lostFrames = status.lostFrames
        state.armedTracks = names
        var readings: [MeterReading] = []
        if client.isMeteringEnabled {
            client.meters.update()
            readings = client.meters.readings()
        }
        state.meters = names.indices.map {
            ControlState.TrackMeter(name: names[$0], reading: $0 < readings.count ? readings[$0] : .silent)
        }
        return state
    }
}
