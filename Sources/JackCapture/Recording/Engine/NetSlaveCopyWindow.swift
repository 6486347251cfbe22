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
/// still; so the cycle began no later than the earliest of the last `window` callbacks, each
/// carried forward by the frames since. A run of late callbacks shorter than the window is
/// measured from the cycles' true phase; when the phase itself moves later (the master missed a
/// deadline), the bound follows it within the window. Two kinds of callback would carry a wrong
/// phase forward, and start the window afresh or stay out of it: one after the clock jumped (an
/// xrun, a link dropout: the cycles after it keep the master's phase, not the slave's count), and
/// one less than half a period after the one before (the slave catching up on queued packets).
///
/// A callback that comes that soon after the one before also says something of the one before:
/// the driver had this cycle's packets queued, and in async mode it renders them as soon as it has
/// woken the clients for the cycle before, so the copy before may have met them however early it
/// ended (`cameAtOnce`). Seen in a CI run after a 100 ms link dropout at 1024-frame periods: in
/// the period after the stalled one, channel 5 on held the next period (5,096 samples), and jcap,
/// judging that copy by its own half period alone, had reported nothing there.
struct NetSlaveCopyWindow {
    static var window: Int { @_noAllocation @_noLocks get { 16 } }

    /// The last callbacks: the frame time each read and when it ran (jack_get_time, µs).
    private var readings = InlineArray<16, UInt32>(repeating: 0)
    private var times = InlineArray<16, UInt64>(repeating: 0)
    private var next = 0
    private var count = 0
    /// The callback before this one, whether or not it went into the window.
    private var lastReading: UInt32 = 0
    private var lastTime: UInt64 = 0
    /// The callback last taken came less than half a period after the one before it: the driver
    /// had its packets queued, and may have rendered them while the one before was still copying.
    private(set) var cameAtOnce = false

    @_noAllocation @_noLocks
    init() {}

    /// Takes the callback of the cycle that read `reading` (JACK's frame time) and holds `frames`,
    /// run at `time`: returns the latest moment the cycle can have begun.
    @_noAllocation @_noLocks
    mutating func cycleBegin(reading: UInt32, frames: Int, calledAt time: UInt64, sampleRate: Int) -> UInt64 {
        cameAtOnce = false
        guard sampleRate > 0, sampleRate <= 10_000_000, frames > 0 else { return time }
        defer {
            lastReading = reading
            lastTime = time
        }
        // Whether or not the clock jumped in between: the packets were there either way.
        cameAtOnce = lastTime > 0 && time >= lastTime && time - lastTime < UInt64(frames) * 500_000 / UInt64(sampleRate)
        if count > 0 {
            if FrameTime.distance(from: lastReading, to: reading) != frames {
                count = 0
            } else if cameAtOnce {
                return bound(reading: reading, time: time, sampleRate: sampleRate)
            }
        }
        readings[next] = reading
        times[next] = time
        next = (next + 1) % Self.window
        count = min(count + 1, Self.window)
        return bound(reading: reading, time: time, sampleRate: sampleRate)
    }

    /// The earliest of `time` and the callbacks in the window carried forward to `reading`.
    @_noAllocation @_noLocks
    private func bound(reading: UInt32, time: UInt64, sampleRate: Int) -> UInt64 {
        var begin = time
        var index = 0
        while index < count {
            let slot = (next + Self.window - 1 - index) % Self.window
            let frames = FrameTime.distance(from: readings[slot], to: reading)
            if frames >= 0 {
                begin = min(begin, times[slot] &+ UInt64(frames) * 1_000_000 / UInt64(sampleRate))
            }
            index += 1
        }
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
