/// When a NetJACK2 slave's driver may already be writing the next period into the capture ports
/// a late callback is still copying.
///
/// Other drivers move JACK's frame time on before they write a new period into the ports
/// (JackAlsaDriver::Read: "has to be done before read"), so a copy that read the same frame time
/// after it as before was not overwritten (`PendingCycle.readingAfterCopy`). The net driver does
/// it the other way round (JackNetDriver::Read): as the master's packets for the next cycle come
/// in, it clears every capture port and renders the packets into them, and only then moves the
/// frame time on. A callback still copying then reads silence or the next period's samples while
/// the frame time says nothing happened: measured, 184 samples of one channel silent in a 64-channel
/// take at 256-frame periods, no xrun reported to the test.
///
/// The next period's packets come no earlier than the master's next cycle, a period after this
/// cycle's began on the slave, less the time they take to arrive. A copy that ended past the
/// middle of the period may have met them, and is reported as a late copy.
///
/// Where the cycle began comes from when the callbacks ran, not from the server's delay-locked
/// loop: on a slave, `jack_get_cycle_times` put the cycles' starts up to 0.45 of a period before
/// they began for the first seconds of a link (measured at 256-frame periods), which made every
/// on-time copy look late. A callback runs a little after its cycle begins, and a late one later
/// still; so the cycle began no later than the earliest of the recent callbacks, each carried
/// forward by the frames since. The bound creeps later by 1/64 of the time carried, so it
/// follows the cycles when their phase moves later (a link restarted), and a late callback or a
/// run of a few cannot pull it far.
struct NetSlaveCopyWindow: Equatable {
    /// The latest moment (jack_get_time, µs) the last cycle seen can have begun, and its reading.
    private var begin: UInt64 = 0
    private var reading: UInt32 = 0
    private var hasBegin = false

    @_noAllocation @_noLocks
    init() {}

    /// Takes the callback of the cycle that read `reading` (JACK's frame time), run at `time`:
    /// returns the latest moment the cycle can have begun.
    @_noAllocation @_noLocks
    mutating func cycleBegin(reading: UInt32, calledAt time: UInt64, sampleRate: Int) -> UInt64 {
        defer {
            self.reading = reading
            hasBegin = true
        }
        guard hasBegin, sampleRate > 0, sampleRate <= 10_000_000 else {
            begin = time
            return begin
        }
        let frames = UInt64(FrameTime.distance(from: self.reading, to: reading).magnitude)
        let carried = frames * 1_000_000 / UInt64(sampleRate)
        let projected = begin &+ carried &+ carried / 64
        begin = projected > begin ? min(time, projected) : time
        return begin
    }

    /// True when a copy that ended at `copyEnd` (µs), in a cycle of `frames` frames that began by
    /// `cycleBegin`, may have met the next period's packets: it ended past the period's middle.
    @_noAllocation @_noLocks
    static func copyMayHaveMetNextPackets(endedAt copyEnd: UInt64, cycleBegin: UInt64, frames: Int, sampleRate: Int) -> Bool {
        guard frames > 0, sampleRate > 0, sampleRate <= 10_000_000 else { return false }
        let period = UInt64(frames) * 1_000_000 / UInt64(sampleRate)
        return copyEnd >= cycleBegin &+ period / 2
    }
}
