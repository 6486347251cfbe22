import Atomics
import CJack
import JackCapture

/// A JACK client that stands in for an audio interface with a cable from its outputs to its
/// inputs: what reaches its input `playback_K` comes out of its output `capture_K` exactly
/// `playbackLatency + captureLatency[K]` frames later, and it declares those latencies on its
/// ports as a driver declares its converters' (JackPlaybackLatency on `playback_K`,
/// JackCaptureLatency on `capture_K`). A recorder that plays to `playback_K` and records
/// `capture_K`, compensating both declared latencies, gets back what it played on the frame it
/// played it: the loopback test of an overdub.
///
/// Its process callback is real-time safe like jcap's: the delay lines are allocated here.
public final class LoopbackClient: @unchecked Sendable {
    // @unchecked: `state` is raw memory shared with the JACK process callback (only atomics cross).
    package let client: JackClient
    /// Full names of the inputs (`playback_1`...) and outputs (`capture_1`...).
    public let playbackPorts: [String]
    public let capturePorts: [String]
    private let state: UnsafeMutablePointer<LoopbackState>

    struct LoopbackState {
        let inputs: UnsafeMutablePointer<OpaquePointer?>
        let outputs: UnsafeMutablePointer<OpaquePointer?>
        let channelCount: Int
        let playbackLatency: Int
        let captureLatencies: UnsafeMutablePointer<Int>
        /// One circular delay line per channel, `lineFrames` long, written at `writeIndex`.
        let lines: UnsafeMutablePointer<Float>
        let lineFrames: Int
        /// The process thread's alone; kept apart so the latency callback, on another thread,
        /// reads nothing the process thread writes.
        let writeIndex: UnsafeMutablePointer<Int>
        let serverGone: UnsafeAtomic<Bool>
    }

    /// Periods up to this long are delayed exactly (JACK's largest is 8192).
    static let largestPeriod = 8_192

    /// - Parameters:
    ///   - playbackLatency: frames declared on every input, as a driver's output latency.
    ///   - captureLatencies: frames declared on each output, as a driver's input latency (cycled
    ///     over the channels; empty: 0).
    package init(client: JackClient, channels: Int, playbackLatency: Int, captureLatencies: [Int]) throws(JackError) {
        self.client = client
        var inputs: [OpaquePointer] = []
        var outputs: [OpaquePointer] = []
        for index in 1...max(1, channels) {
            inputs.append(try client.registerAudioInput(named: "playback_\(index)"))
            outputs.append(try client.registerAudioOutput(named: "capture_\(index)"))
        }
        playbackPorts = inputs.map { client.fullName(of: $0) }
        capturePorts = outputs.map { client.fullName(of: $0) }
        let count = inputs.count
        let captures = (0..<count).map { captureLatencies.isEmpty ? 0 : max(0, captureLatencies[$0 % captureLatencies.count]) }
        let lineFrames = max(0, playbackLatency) + (captures.max() ?? 0) + Self.largestPeriod
        let inputList = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: count)
        inputList.initialize(from: inputs.map { Optional($0) }, count: count)
        let outputList = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: count)
        outputList.initialize(from: outputs.map { Optional($0) }, count: count)
        let latencies = UnsafeMutablePointer<Int>.allocate(capacity: count)
        latencies.initialize(from: captures, count: count)
        let lines = UnsafeMutablePointer<Float>.allocate(capacity: lineFrames * count)
        lines.initialize(repeating: 0, count: lineFrames * count)
        let writeIndex = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        writeIndex.initialize(to: 0)
        state = .allocate(capacity: 1)
        state.initialize(to: LoopbackState(inputs: inputList, outputs: outputList, channelCount: count,
                                           playbackLatency: max(0, playbackLatency), captureLatencies: latencies,
                                           lines: lines, lineFrames: lineFrames, writeIndex: writeIndex, serverGone: .create(false)))
        client.setLatencyCallback({ mode, argument in
            argument?.assumingMemoryBound(to: LoopbackState.self).pointee.declareLatencies(mode)
        }, argument: UnsafeMutableRawPointer(state))
        state.pointee.declareLatencies(JackCaptureLatency)
        state.pointee.declareLatencies(JackPlaybackLatency)
        client.setProcessCallback(loopbackProcessCallback, argument: UnsafeMutableRawPointer(state))
        client.setShutdownCallback({ _, _, argument in
            argument?.assumingMemoryBound(to: LoopbackState.self).pointee.serverGone.store(true, ordering: .releasing)
        }, argument: UnsafeMutableRawPointer(state))
        try client.activate()
        client.recomputeTotalLatencies()
    }

    public var serverGone: Bool { state.pointee.serverGone.load(ordering: .acquiring) }

    deinit {
        client.deactivate()
        client.close()
        state.pointee.inputs.deallocate()
        state.pointee.outputs.deallocate()
        state.pointee.captureLatencies.deallocate()
        state.pointee.lines.deallocate()
        state.pointee.writeIndex.deallocate()
        state.pointee.serverGone.destroy()
        state.deinitialize(count: 1)
        state.deallocate()
    }
}

extension LoopbackClient.LoopbackState {
    /// The latencies a driver would declare: its output latency on the ports sound leaves by,
    /// its input latency on the ports sound arrives from.
    func declareLatencies(_ mode: jack_latency_callback_mode_t) {
        for channel in 0..<channelCount {
            if mode == JackPlaybackLatency, let port = inputs[channel] {
                JackClient.setPlaybackLatency(JackLatencyRange(minimum: playbackLatency, maximum: playbackLatency), of: port)
            }
            if mode == JackCaptureLatency, let port = outputs[channel] {
                let latency = captureLatencies[channel]
                JackClient.setCaptureLatency(JackLatencyRange(minimum: latency, maximum: latency), of: port)
            }
        }
    }
}

/// Writes each input's cycle into its delay line, then reads the output's cycle from
/// `playbackLatency + captureLatency` frames behind it.
@_noAllocation @_noLocks
func loopbackProcessCallback(_ frameCount: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    let state = argument.assumingMemoryBound(to: LoopbackClient.LoopbackState.self)
    let frames = Int(frameCount)
    let size = state.pointee.lineFrames
    guard frames <= LoopbackClient.largestPeriod else { return 0 }
    let start = state.pointee.writeIndex.pointee
    for channel in 0..<state.pointee.channelCount {
        let line = state.pointee.lines + channel * size
        if let port = state.pointee.inputs[channel], let buffer = jack_port_get_buffer(port, frameCount) {
            let input = buffer.assumingMemoryBound(to: Float.self)
            for frame in 0..<frames { line[(start + frame) % size] = input[frame] }
        }
        let delay = state.pointee.playbackLatency + state.pointee.captureLatencies[channel]
        if let port = state.pointee.outputs[channel], let buffer = jack_port_get_buffer(port, frameCount) {
            let output = buffer.assumingMemoryBound(to: Float.self)
            let from = start + size - delay
            for frame in 0..<frames { output[frame] = line[(from + frame) % size] }
        }
    }
    state.pointee.writeIndex.pointee = (start + frames) % size
    return 0
}
