import Atomics
import CJack

/// JACK's process callback for a capture engine (jack_set_process_callback). `argument` is the
/// engine's `CaptureProcessState`.
///
/// Each cycle it reads the frame time, copies the whole cycle of every port to the ring (when any
/// of it may belong to the take) without publishing it, and plans the cycle read
/// `CycleTimeline.lookahead` cycles ago, whose true frame time the readings since have settled:
/// the planner says which of its frames go where in the take, and the callback publishes that
/// block and the plan's events. Everything here is `@_noAllocation @_noLocks`.
@_noAllocation @_noLocks
func captureProcessCallback(_ frameCount: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    argument.assumingMemoryBound(to: CaptureProcessState.self).pointee.runCycle(frameCount: frameCount)
    return 0
}

extension CaptureProcessState {
    /// One JACK cycle.
    @_noAllocation @_noLocks
    func runCycle(frameCount nframes: UInt32) {
        // Once the state was flushed after a shutdown, no cycle may touch it again.
        guard callbackOwnership.compareExchange(expected: Self.callbackIdle, desired: Self.callbackRunning,
                                                ordering: .acquiring).exchanged
        else { return }
        let metering = meteringEnabled.load(ordering: .relaxed)
        let measuredWhileCopying = advanceTake(frameCount: nframes, metering: metering)
        if metering {
            if !measuredWhileCopying { measureLevels(frameCount: nframes) }
            meters.finishCycle(frames: Int(nframes))
        }
        callbackOwnership.store(Self.callbackIdle, ordering: .releasing)
    }

    /// Reads this cycle into the take's timeline and plans the oldest cycle whose time is settled.
    /// Returns whether it measured the cycle for the meters as it copied it (`metering`).
    @_noAllocation @_noLocks
    private func advanceTake(frameCount nframes: UInt32, metering: Bool) -> Bool {
        let armed = armedTake.load(ordering: .acquiring)
        if armed != own.pointee.take { beginTake(armed) }
        guard armed != 0, !own.pointee.planner.isFinished else { return false }
        var measured = false
        _ = cycles.loadThenWrappingIncrement(ordering: .relaxed)
        let reading = jack_last_frame_time(client)
        let n = Int(nframes)
        loadRequests()
        if own.pointee.requests.start == Self.noRequest { decideClockStart(reading: reading, frames: n) }
        decideSplit(frames: n)
        let rateChanged = changedSampleRate.load(ordering: .acquiring) != 0

        var cycle = PendingCycle(reading: reading, frames: n, afterRateChange: rateChanged)
        if !rateChanged && mayBelongToTake(reading: reading, frames: n) {
            let staged = own.pointee.timeline.stagedBytes
            let blockBytes = CaptureBlockHeader.blockByteCount(frames: n, channels: channelCount)
            if ring.writableByteCount() >= staged + blockBytes {
                stageCycle(frameCount: nframes, at: staged, metering: metering)
                cycle.stagedBytes = blockBytes
                measured = metering
            } else {
                cycle.dropped = true
            }
        }
        let stall = stallMicroseconds.load(ordering: .relaxed)
        if stall > 0 {
            // Test hook: this callback runs late. It holds the cycle's frames already; spinning
            // past the next cycle's start before reading the clock gives it the reading JACK 2
            // gives a late client: the next cycle's frame time (and the server an xrun).
            stallMicroseconds.store(0, ordering: .relaxed)
            let deadline = jack_get_time() + UInt64(stall)
            while jack_get_time() < deadline {}
            cycle.reading = jack_last_frame_time(client)
        }
        if cycle.stagedBytes > 0 { cycle.readingAfterCopy = jack_last_frame_time(client) }
        own.pointee.timeline.append(cycle)
        if rateChanged {
            planEveryPendingCycle()
        } else if own.pointee.timeline.isFull {
            planOldestCycle()
        }
        return measured
    }

    /// Resets the callback's state for a newly armed take.
    @_noAllocation @_noLocks
    private func beginTake(_ take: UInt32) {
        own.pointee.take = take
        own.pointee.timeline.removeAll()
        own.pointee.planner = CyclePlanner()
        own.pointee.clockStartFrame = -1
        own.pointee.clockStartAsked = false
        own.pointee.split = SplitState()
        position.store(0, ordering: .relaxed)
        startFrame.store(-1, ordering: .relaxed)
        overrunFrames.store(0, ordering: .relaxed)
        overrunCycles.store(0, ordering: .relaxed)
        skippedFrames.store(0, ordering: .relaxed)
        cycles.store(0, ordering: .relaxed)
        lateCycles.store(0, ordering: .relaxed)
        phase.store(take == 0 ? 0 : CyclePlanner().phase.capturePhaseRawValue, ordering: .relaxed)
        activeTake.store(take, ordering: .releasing)
    }

    @_noAllocation @_noLocks
    private func loadRequests() {
        own.pointee.requests.start = requestedStart.load(ordering: .relaxed)
        own.pointee.requests.length = requestedLength.load(ordering: .relaxed)
        own.pointee.requests.stop = requestedStop.load(ordering: .acquiring)
        own.pointee.requests.pause = requestedPause.load(ordering: .acquiring)
        own.pointee.requests.resume = requestedResume.load(ordering: .acquiring)
    }

    /// For a take told to start at a moment of JACK's clock: decides its frame in the cycle the
    /// moment falls in, from that cycle's times, as every client of the server sees them
    /// (`ClockStart`). Until then the start reads as 2^30 frames ahead, so nothing is staged and
    /// the planner waits.
    @_noAllocation @_noLocks
    private func decideClockStart(reading: UInt32, frames n: Int) {
        if own.pointee.clockStartFrame >= 0 {
            own.pointee.requests.start = own.pointee.clockStartFrame
            return
        }
        let moment = requestedClockStart.load(ordering: .relaxed)
        guard moment != Self.noRequest else { return }
        var frame: jack_nframes_t = 0
        var microseconds: jack_time_t = 0
        var nextMicroseconds: jack_time_t = 0
        var periodMicroseconds: Float = 0
        var decision = ClockStart.Decision.later
        if jack_get_cycle_times(client, &frame, &microseconds, &nextMicroseconds, &periodMicroseconds) == 0 {
            let cycle = CycleTimes(frame: frame, microseconds: microseconds, nextMicroseconds: nextMicroseconds)
            decision = ClockStart.decide(nanoseconds: moment, in: cycle, frames: n,
                                         firstCycle: !own.pointee.clockStartAsked)
        }
        own.pointee.clockStartAsked = true
        switch decision {
        case .later:
            own.pointee.requests.start = Int64(FrameTime.advance(reading, by: 1 << 30))
        case .frame(let start):
            own.pointee.clockStartFrame = Int64(start)
            own.pointee.requests.start = Int64(start)
        }
    }

    /// Whether any frame of the cycle read at `reading` may go into the take. A cycle starts no
    /// later than its reading, so a cycle read `frames` or more before the start frame holds none;
    /// nor does one that starts after the stop frame. Paused cycles are copied: a resume asked
    /// for "now" names a frame of the cycle the callback has just read.
    @_noAllocation @_noLocks
    private func mayBelongToTake(reading: UInt32, frames: Int) -> Bool {
        let requests = own.pointee.requests
        let planner = own.pointee.planner
        if requests.stop != Self.noRequest && planner.hasPlannedACycle {
            let earliestStart = FrameTime.advance(planner.nextFrame, by: own.pointee.timeline.pendingFrames)
            if FrameTime.distance(from: UInt32(truncatingIfNeeded: requests.stop), to: earliestStart) >= 0 { return false }
        }
        switch planner.phase {
        case .waiting:
            guard requests.start != Self.noRequest else { return true }
            return FrameTime.distance(from: reading, to: UInt32(truncatingIfNeeded: requests.start)) < frames
        case .recording, .paused:
            return true
        case .finished, .missedStart:
            return false
        }
    }

    /// Copies every port's whole cycle to the ring, `offset` bytes past what is already staged,
    /// after room for the block's header. Nothing is published until the cycle is planned. With
    /// `metering`, each channel is measured for the meters in the same pass (each sample read
    /// once, not once to copy and once to measure).
    @_noAllocation @_noLocks
    private func stageCycle(frameCount nframes: UInt32, at offset: Int, metering: Bool) {
        let channelBytes = Int(nframes) * MemoryLayout<Float>.stride
        var at = offset + CaptureBlockHeader.byteCount
        for channel in 0..<channelCount {
            if let port = ports[channel], let buffer = jack_port_get_buffer(port, nframes) {
                if metering {
                    let samples = UnsafePointer(buffer.assumingMemoryBound(to: Float.self))
                    let pieces = ring.stagingPieces(byteCount: channelBytes, at: at)
                    let firstCount = pieces.firstByteCount / MemoryLayout<Float>.stride
                    var cycle = MeterAccumulators.copyMeasuring(samples, into: pieces.first, count: firstCount)
                    if firstCount < Int(nframes) {
                        cycle = cycle.combined(with: MeterAccumulators.copyMeasuring(
                            samples + firstCount, into: pieces.second, count: Int(nframes) - firstCount))
                    }
                    meters.publish(channel: channel, cycle)
                } else {
                    ring.stage(from: UnsafeRawPointer(buffer), byteCount: channelBytes, at: at)
                }
            } else {
                // JACK always has a buffer for a registered port; silence keeps the take aligned
                // rather than trapping on the real-time thread if it ever has not.
                ring.stageZeros(byteCount: channelBytes, at: at)
            }
            at += channelBytes
        }
    }

    /// Plans every cycle read and not yet planned, with what is known now: when the sample rate
    /// changed (the cycles after it do not belong to the take), or after a shutdown.
    @_noAllocation @_noLocks
    private func planEveryPendingCycle() {
        while own.pointee.timeline.count > 0 && !own.pointee.planner.isFinished {
            planOldestCycle()
        }
        own.pointee.timeline.removeAll()
    }

    /// Plans the oldest cycle read: finds its true frame time, asks the planner what to do with
    /// it, publishes its block (or counts it lost) and the plan's events.
    @_noAllocation @_noLocks
    private func planOldestCycle() {
        let planner = own.pointee.planner
        let previousEnd: UInt32? = planner.hasPlannedACycle ? planner.nextFrame : nil
        let cycleStart = own.pointee.timeline.startOfOldest(after: previousEnd)
        let cycle = own.pointee.timeline.removeOldest()
        if FrameTime.distance(from: cycleStart, to: cycle.reading) > 0 {
            _ = lateCycles.loadThenWrappingIncrement(ordering: .relaxed)
        }
        var requests = own.pointee.requests
        requests.sampleRateChanged = cycle.afterRateChange
        let plan = own.pointee.planner.plan(cycleStart: cycleStart, frames: cycle.frames, requests: requests)
        if plan.consumedPause {
            _ = requestedPause.compareExchange(expected: requests.pause, desired: Self.noRequest, ordering: .relaxed)
            own.pointee.requests.pause = Self.noRequest
        }
        if plan.consumedResume {
            _ = requestedResume.compareExchange(expected: requests.resume, desired: Self.noRequest, ordering: .relaxed)
            own.pointee.requests.resume = Self.noRequest
        }
        if plan.skippedFrames > 0 {
            _ = skippedFrames.loadThenWrappingIncrement(by: plan.skippedFrames, ordering: .relaxed)
        }
        settleSplit(plan)
        var index = 0
        while index < plan.eventCount {
            let event = plan.events[index]
            if event.kind == CaptureEventRecord.startedKind {
                startFrame.store(Int64(event.frameTime), ordering: .relaxed)
            }
            emit(event.kind, frameTime: event.frameTime, position: event.position, value: event.value)
            index += 1
        }

        let copied = plan.copiedFrames
        if cycle.stagedBytes > 0 && copied > 0
            && FrameTime.distance(from: cycleStart, to: cycle.readingAfterCopy) >= cycle.frames {
            // Copied once JACK had begun a later cycle: placed right, but its source may have
            // written the next period into the shared buffer first. Said, so it is never hidden.
            let first = plan.spans[0]
            emit(CaptureEventRecord.lateCopyKind, frameTime: FrameTime.advance(cycleStart, by: first.offset),
                 position: first.position, value: Int64(copied))
        }
        if cycle.stagedBytes > 0 {
            if copied > 0 || own.pointee.timeline.stagedBytes > 0 || own.pointee.split.cutCount > 0 {
                // Published even with nothing in it when later blocks are staged behind it (the
                // writer skips it; the ring stays one run of blocks), or to carry a split.
                commitBlock(of: cycle, startingAt: cycleStart, plan: plan)
            }
        } else if copied > 0 {
            // The ring had no room when the cycle came (the disk fell behind): its frames are
            // lost, and the writer writes silence in their place.
            _ = overrunFrames.loadThenWrappingIncrement(by: Int64(copied), ordering: .relaxed)
            _ = overrunCycles.loadThenWrappingIncrement(ordering: .relaxed)
            let first = plan.spans[0]
            emit(CaptureEventRecord.overrunKind, frameTime: FrameTime.advance(cycleStart, by: first.offset),
                 position: first.position, value: Int64(copied))
        }
        position.store(own.pointee.planner.position, ordering: .releasing)
        phase.store(own.pointee.planner.phase.capturePhaseRawValue, ordering: .releasing)
        if plan.finished {
            // Later cycles staged behind this one are never published.
            own.pointee.timeline.removeAll()
        }
    }

    /// Writes the block's header in front of its staged frames and publishes the block.
    @_noAllocation @_noLocks
    private func commitBlock(of cycle: PendingCycle, startingAt cycleStart: UInt32, plan: CyclePlan) {
        let header = own.pointee.header
        header.pointee = CaptureBlockHeader(take: own.pointee.take, frameCount: Int32(cycle.frames), frameTime: cycleStart)
        var index = 0
        while index < plan.spanCount {
            let span = plan.spans[index]
            header.pointee.append(BlockSpan(offset: Int32(span.offset), count: Int32(span.count), position: span.position))
            index += 1
        }
        attachCut(to: header)
        ring.stage(from: UnsafeRawPointer(header), byteCount: CaptureBlockHeader.byteCount, at: 0)
        ring.commitWrite(byteCount: cycle.stagedBytes)
    }

    /// Feeds every port's cycle to the live meters. (The take's highest peaks and clips are
    /// measured by its writer, from exactly the frames the take holds.)
    @_noAllocation @_noLocks
    private func measureLevels(frameCount nframes: UInt32) {
        for channel in 0..<channelCount {
            guard let port = ports[channel], let buffer = jack_port_get_buffer(port, nframes) else { continue }
            meters.measure(channel: channel, samples: UnsafePointer(buffer.assumingMemoryBound(to: Float.self)),
                           count: Int(nframes))
        }
    }

    /// Publishes an event from the process callback.
    @_noAllocation @_noLocks
    func emit(_ kind: Int32, frameTime: UInt32, position: Int64, value: Int64 = 0) {
        let record = own.pointee.eventRecord
        record.pointee.kind = kind
        record.pointee.frameTime = frameTime
        record.pointee.position = position
        record.pointee.value = value
        record.pointee.extra = 0
        events.publish(UnsafePointer(record), dropped: droppedEvents)
    }

    /// After the server shut down, plans and publishes the cycles the callback read but had not
    /// yet planned, so that everything received reaches the file. Waits for a running callback to
    /// return (JACK may announce the shutdown on another thread); no callback runs afterwards.
    func flushAfterShutdown() {
        while true {
            let (exchanged, original) = callbackOwnership.compareExchange(
                expected: Self.callbackIdle, desired: Self.flushedAfterShutdown, ordering: .acquiring)
            if exchanged { break }
            if original == Self.flushedAfterShutdown { return }
        }
        if own.pointee.take != 0 && !own.pointee.planner.isFinished { planEveryPendingCycle() }
    }
}
