import Atomics
import CJack

// The callbacks JACK runs on its notification thread (and, for a shutdown, possibly another
// non-real-time thread): they publish what happened as events and set flags the process
// callback and the take's owner read. None of them touches the process callback's own state.

/// JACK's xrun callback (jack_set_xrun_callback): counts them and reports where. JACK 2 calls it
/// on the client's notification thread, not the process thread.
func captureXrunCallback(_ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    let state = argument.assumingMemoryBound(to: CaptureProcessState.self).pointee
    _ = state.xruns.loadThenWrappingIncrement(ordering: .relaxed)
    state.notify(.xrun, value: 0)
    return 0
}

/// JACK's shutdown callback (jack_on_info_shutdown): the server is gone, no cycle will follow.
@_noAllocation @_noLocks
func captureShutdownCallback(_ code: jack_status_t, _ reason: UnsafePointer<CChar>?,
                             _ argument: UnsafeMutableRawPointer?) {
    guard let argument else { return }
    argument.assumingMemoryBound(to: CaptureProcessState.self).pointee.serverGone
        .store(true, ordering: .releasing)
}

/// JACK's port-connect callback (jack_set_port_connect_callback), on the notification thread:
/// reports connections made to or broken from the engine's ports, with the other port's name.
func capturePortConnectCallback(_ a: jack_port_id_t, _ b: jack_port_id_t, _ connect: Int32,
                                _ argument: UnsafeMutableRawPointer?) {
    guard let argument else { return }
    let state = argument.assumingMemoryBound(to: CaptureProcessState.self).pointee
    guard let first = jack_port_by_id(state.client, a), let second = jack_port_by_id(state.client, b) else { return }
    for channel in 0..<state.channelCount {
        let port = state.ports[channel]
        let other: OpaquePointer
        if port == first { other = second } else if port == second { other = first } else { continue }
        let name = jack_port_name(other).map { String(cString: $0) } ?? "port \(connect != 0 ? b : a)"
        // A hardware input's first period after a connection may be older audio (`ConnectionTiming`).
        let hardware = jack_port_flags(other) & Int32(JackPortIsPhysical.rawValue) != 0
        state.notify(connect != 0 ? .portConnected : .portDisconnected,
                     value: Int64(channel) | (hardware ? CaptureEventRecord.hardwareSourceFlag : 0), text: name)
    }
}

/// JACK's buffer-size callback (jack_set_buffer_size_callback): the period changes; the process
/// callback copies whatever period it is given, so recording goes on. Only reported.
func captureBufferSizeCallback(_ frames: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    let state = argument.assumingMemoryBound(to: CaptureProcessState.self).pointee
    // JACK also calls it on activation, with the period the engine already has: not a change.
    guard state.periodFrames.exchange(Int(frames), ordering: .relaxed) != Int(frames) else { return 0 }
    state.notify(.bufferSizeChanged, value: Int64(frames))
    return 0
}

/// JACK's sample-rate callback (jack_set_sample_rate_callback). JACK calls it once when it is
/// installed; a rate other than the take's stops the take at the next cycle: frames at another
/// rate cannot continue the same file.
func captureSampleRateCallback(_ rate: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    let state = argument.assumingMemoryBound(to: CaptureProcessState.self).pointee
    guard Int(rate) != state.sampleRate else { return 0 }
    // The next cycle ends the take at its first frame: every frame at the old rate is kept, none
    // at the new one is.
    state.changedSampleRate.store(Int(rate), ordering: .releasing)
    state.notify(.sampleRateChanged, value: Int64(rate), extra: Int64(state.sampleRate))
    return 0
}

extension CaptureProcessState {
    /// Publishes an event from JACK's notification thread, at the server's current frame estimate.
    func notify(_ kind: CaptureEventRecord.Kind, value: Int64, extra: Int64 = 0, text: String = "") {
        let record = CaptureEventRecord(kind: kind.rawValue, frameTime: jack_frame_time(client),
                                        position: position.load(ordering: .acquiring), value: value, extra: extra)
        notifications.publish(record, text: text, dropped: droppedEvents)
    }
}
