import Atomics
import CJack
import JackCapture

/// A JACK client whose output ports play a test signal on `out_1` ... `out_N`: by default the
/// frame-time code (channel `c` carrying `TestSignal.sample(frameTime:channel:)` at every frame
/// time), or a sine or silence for the meters. Its process callback is real-time safe like jcap's.
public final class TestSignalGenerator: @unchecked Sendable {
    public let client: JackClient
    public let portNames: [String]
    private let state: UnsafeMutablePointer<GeneratorState>

    struct GeneratorState {
        let client: OpaquePointer
        let ports: UnsafeMutablePointer<OpaquePointer?>
        let channelCount: Int
        let table: TestSignal.Table
        let serverGone: UnsafeAtomic<Bool>
        /// Each port's declared capture latency in frames (0: none declared).
        let captureLatencies: UnsafeMutablePointer<Int>
    }

    /// - Parameter captureLatencies: a capture latency in frames to declare for each port, as a
    ///   source behind a converter would (cycled over the ports; empty: none). The signal itself is
    ///   not delayed: a recorder aligned to the latency finds the port's samples shifted by it.
    public init(client: JackClient, channels: Int, captureLatencies: [Int] = [],
                signal: (Int) -> TestSignal.Table = { _ in .code() }) throws(JackError) {
        self.client = client
        // Built before any port exists: a port appears to others only once it can be connected.
        let table = signal(client.sampleRate)
        var ports: [OpaquePointer] = []
        for index in 1...max(1, channels) {
            ports.append(try client.registerAudioOutput(named: "out_\(index)"))
        }
        portNames = ports.map { client.fullName(of: $0) }
        let list = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: ports.count)
        list.initialize(from: ports.map { Optional($0) }, count: ports.count)
        let latencies = UnsafeMutablePointer<Int>.allocate(capacity: ports.count)
        latencies.initialize(from: ports.indices.map { captureLatencies.isEmpty ? 0 : captureLatencies[$0 % captureLatencies.count] },
                             count: ports.count)
        state = .allocate(capacity: 1)
        state.initialize(to: GeneratorState(client: client.handle, ports: list, channelCount: ports.count,
                                            table: table, serverGone: .create(false), captureLatencies: latencies))
        if !captureLatencies.isEmpty {
            client.setLatencyCallback({ mode, argument in
                guard mode == JackCaptureLatency, let argument else { return }
                argument.assumingMemoryBound(to: GeneratorState.self).pointee.declareCaptureLatencies()
            }, argument: UnsafeMutableRawPointer(state))
            state.pointee.declareCaptureLatencies()
        }
        client.setProcessCallback(testSignalProcessCallback, argument: UnsafeMutableRawPointer(state))
        client.setShutdownCallback({ _, _, argument in
            argument?.assumingMemoryBound(to: GeneratorState.self).pointee.serverGone.store(true, ordering: .releasing)
        }, argument: UnsafeMutableRawPointer(state))
        try client.activate()
        if !captureLatencies.isEmpty { client.recomputeTotalLatencies() }
    }

    /// True once the server has shut the client down: nothing will play any more.
    public var serverGone: Bool { state.pointee.serverGone.load(ordering: .acquiring) }

    deinit {
        client.deactivate()
        state.pointee.ports.deallocate()
        state.pointee.table.deallocate()
        state.pointee.serverGone.destroy()
        state.pointee.captureLatencies.deallocate()
        state.deallocate()
    }
}

extension TestSignalGenerator.GeneratorState {
    func declareCaptureLatencies() {
        for channel in 0..<channelCount {
            guard let port = ports[channel] else { continue }
            JackClient.setCaptureLatency(JackLatencyRange(minimum: captureLatencies[channel], maximum: captureLatencies[channel]),
                                         of: port)
        }
    }
}

@_noAllocation @_noLocks
func testSignalProcessCallback(_ frameCount: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    let state = argument.assumingMemoryBound(to: TestSignalGenerator.GeneratorState.self)
    let start = jack_last_frame_time(state.pointee.client)
    for channel in 0..<state.pointee.channelCount {
        if let port = state.pointee.ports[channel], let buffer = jack_port_get_buffer(port, frameCount) {
            state.pointee.table.render(into: buffer.assumingMemoryBound(to: Float.self), frames: Int(frameCount),
                                       start: start, channel: channel)
        }
    }
    return 0
}
