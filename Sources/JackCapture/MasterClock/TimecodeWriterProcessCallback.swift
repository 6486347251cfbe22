import CJack

/// JACK's process callback for a `TimecodeWriter` (jack_set_process_callback); `argument` is its
/// `TimecodeWriterProcessState`. Each cycle its port carries the timecode of the cycle's own
/// frames, from the frame time JACK gives the cycle: nothing else.
@_noAllocation @_noLocks
func timecodeWriterProcessCallback(_ frameCount: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    let state = argument.assumingMemoryBound(to: TimecodeWriterProcessState.self)
    guard let buffer = jack_port_get_buffer(state.pointee.port, frameCount) else { return 0 }
    MasterTimecode.write(from: jack_last_frame_time(state.pointee.client), into: buffer.assumingMemoryBound(to: Float.self),
                         count: Int(frameCount))
    return 0
}
