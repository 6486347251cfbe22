import CJack

extension CycleTimes {
    /// The current cycle's times (jack_get_cycle_times), for a process callback (the one place
    /// the callbacks ask for them): nil when JACK has none to give.
    @_noAllocation @_noLocks
    static func current(of client: OpaquePointer) -> CycleTimes? {
        var frame: jack_nframes_t = 0
        var microseconds: jack_time_t = 0
        var nextMicroseconds: jack_time_t = 0
        var periodMicroseconds: Float = 0
        guard jack_get_cycle_times(client, &frame, &microseconds, &nextMicroseconds, &periodMicroseconds) == 0 else {
            return nil
        }
        return CycleTimes(frame: frame, microseconds: microseconds, nextMicroseconds: nextMicroseconds)
    }
}
