import Atomics
import CJack
import CSimd

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
        if timecodePort != nil { readTimecode(frameCount: nframes) }
        let metering = meteringEnabled.load(ordering: .relaxed)
        if metering { meters.beginCycle() }
        let measuredWhileCopying = advanceTake(frameCount: nframes, metering: metering)
        lastCycleEnd.store(Int64(jack_last_frame_time(client) &+ nframes), ordering: .releasing)
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
        if watchesTransport.load(ordering: .relaxed) { watchTransport() }
        let armed = armedTake.load(ordering: .acquiring)
        if armed != own.pointee.take { beginTake(armed) }
        guard armed != 0, !own.pointee.planner.isFinished else { return false }
        var measured = false
        _ = cycles.loadThenWrappingIncrement(ordering: .relaxed)
        let reading = jack_last_frame_time(client)
        // The take's frames name converter time: JACK's less the alignment (0 without it).
        let alignedReading = FrameTime.advance(reading, by: -own.pointee.alignment)
        let n = Int(nframes)
        loadRequests()
        if own.pointee.followsTransport { followTransport(reading: reading, alignedReading: alignedReading) }
        if own.pointee.triggerLevel > 0 { followTrigger(reading: alignedReading, frames: n) }
        if own.pointee.followsCue { followCue(reading: alignedReading) }
        if own.pointee.requests.start == Self.noRequest { decideClockStart(reading: reading, frames: n) }
        if own.pointee.requests.start == Self.noRequest && own.pointee.longestDelay > 0 {
            // Started "now" with channels delayed (latency alignment): decided on the take's first
            // cycle, the longest delay after it, so every channel's delay line holds real sound.
            if own.pointee.alignedImmediateStart < 0 {
                own.pointee.alignedImmediateStart = Int64(FrameTime.advance(alignedReading, by: own.pointee.longestDelay))
            }
            own.pointee.requests.start = own.pointee.alignedImmediateStart
        }
        decideSplit(frames: n)
        let rateChanged = changedSampleRate.load(ordering: .acquiring) != 0

        var cycle = PendingCycle(reading: reading, frames: n, afterRateChange: rateChanged)
        cycle.renumbered = PendingCycle.renumbering(frames: n, reading: reading, lastFrames: own.pointee.lastCycleFrames,
                                                    lastReading: own.pointee.lastCycleReading)
        own.pointee.lastCycleFrames = n
        own.pointee.lastCycleReading = reading
        own.pointee.cycleSerial &+= 1
        cycle.serial = own.pointee.cycleSerial
        if onNetJackSlave { cycle.callbackTime = jack_get_time() }
        cycle.masterFrame = own.pointee.cycleMasterFrame
        if !rateChanged && mayBelongToTake(reading: alignedReading, frames: n) {
            let staged = own.pointee.timeline.stagedBytes + own.pointee.preRoll.stagedBytes
            let blockBytes = CaptureBlockHeader.blockByteCount(frames: n, channels: channelCount)
            if ring.writableByteCount() >= staged + blockBytes {
                let changed = stageCycle(frameCount: nframes, at: staged, metering: metering, serial: cycle.serial)
                cycle.firstChangedInput = changed.first
                cycle.lastChangedInput = changed.last
                cycle.stagedBytes = blockBytes
                measured = metering
            } else {
                cycle.dropped = true
            }
        }
        if cycle.stagedBytes == 0 {
            feedDelayLines(frameCount: nframes)
            // A change in a cycle not copied cannot be placed: the next copied one only learns.
            if own.pointee.inputBuffersKnown {
                own.pointee.forgetInputBuffers()
                own.pointee.inputBuffersKnown = false
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
        if onNetJackSlave {
            let begin = own.pointee.copyWindow.cycleBegin(reading: reading, frames: n, calledAt: cycle.callbackTime, sampleRate: sampleRate)
            if own.pointee.copyWindow.cameAtOnce { own.pointee.timeline.markNewestCopyMetNextPackets() }
            if cycle.stagedBytes > 0 {
                cycle.copyMetNextPackets = NetSlaveCopyWindow.copyMayHaveMetNextPackets(
                    endedAt: jack_get_time(), cycleBegin: begin, frames: n, sampleRate: sampleRate)
            }
        }
        own.pointee.timeline.append(cycle)
        if rateChanged {
            planEveryPendingCycle()
        } else if own.pointee.timeline.isFull {
            placeOldestCycle()
        }
        return measured
    }

    /// Resets the callback's state for a newly armed take.
    @_noAllocation @_noLocks
    private func beginTake(_ take: UInt32) {
        own.pointee.take = take
        own.pointee.linkDropouts = LinkDropoutWatch()
        let masterOffset = requestedMasterOffset.load(ordering: .relaxed)
        own.pointee.masterClock = MasterClockWatch(offset: masterOffset < 0 ? nil : UInt32(truncatingIfNeeded: masterOffset))
        own.pointee.timeline.reset()
        own.pointee.lastCycleFrames = 0
        own.pointee.preRoll.removeAll()
        own.pointee.planner = CyclePlanner()
        own.pointee.clockStartFrame = -1
        own.pointee.clockStartAsked = false
        own.pointee.alignment = requestedAlignment.load(ordering: .relaxed)
        own.pointee.longestDelay = requestedLongestDelay.load(ordering: .relaxed)
        own.pointee.alignedImmediateStart = -1
        own.pointee.followsTransport = requestedTransportFollow.load(ordering: .relaxed)
        own.pointee.transportStart = -1
        own.pointee.transportStop = -1
        own.pointee.preRollFrames = min(requestedPreRoll.load(ordering: .relaxed), maximumPreRollFrames)
        own.pointee.triggerLevel = Float(bitPattern: UInt32(truncatingIfNeeded: requestedTriggerLevel.load(ordering: .relaxed)))
        own.pointee.triggerStopFrames = requestedTriggerStop.load(ordering: .relaxed)
        own.pointee.triggerFrame = -1
        own.pointee.triggerStart = -1
        own.pointee.triggerStop = -1
        own.pointee.followsCue = requestedCue.load(ordering: .relaxed) != Self.noRequest
        own.pointee.cueStart = -1
        own.pointee.awaitingTrigger = own.pointee.followsTransport || own.pointee.triggerLevel > 0 || own.pointee.followsCue
        // The new take's delay lines, if any; the last take's go back to the arming thread.
        let incoming = pendingDelayLines.exchange(0, ordering: .acquiring)
        if let previous = own.pointee.delayLines {
            _ = retiredDelayLines.exchange(Int(bitPattern: previous), ordering: .releasing)
        }
        own.pointee.delayLines = UnsafeMutablePointer<DelayLineSet>(bitPattern: incoming)
        own.pointee.split = SplitState()
        own.pointee.forgetInputBuffers()
        own.pointee.inputBuffersKnown = false
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

    /// Reads the transport's state for this cycle and notes when it starts rolling (the cycle's
    /// first frame, the transport's position and bar-beat-tick then) and when it stops. The
    /// first cycle watched only learns the state: a roll already going began on a frame the
    /// callback never saw.
    @_noAllocation @_noLocks
    private func watchTransport() {
        let rolling = jack_transport_query(client, own.pointee.transportPosition).rawValue == JackTransportRolling.rawValue
        let frame = jack_last_frame_time(client)
        if !own.pointee.transportWatched {
            own.pointee.transportWatched = true
        } else if rolling && !own.pointee.transportRolling {
            let position = own.pointee.transportPosition
            own.pointee.rollStartSeen = true
            own.pointee.rollFrame = frame
            own.pointee.rollTransportFrame = position.pointee.frame
            let hasBBT = (position.pointee.valid.rawValue & JackPositionBBT.rawValue) != 0
            own.pointee.rollBBT = hasBBT
                ? TransportBBT.packed(bar: position.pointee.bar, beat: position.pointee.beat, tick: position.pointee.tick) : -1
        } else if !rolling && own.pointee.transportRolling {
            own.pointee.stopFrame = frame
        }
        own.pointee.transportRolling = rolling
    }

    /// For a take that follows the transport: it starts on the frame the transport started
    /// rolling on (a roll that began before the take was armed is a missed start: its first
    /// frames are not in the ring), and ends on the frame it stops on, or earlier if asked. Until
    /// a roll, the start reads as 2^30 frames ahead.
    @_noAllocation @_noLocks
    private func followTransport(reading: UInt32, alignedReading: UInt32) {
        if own.pointee.transportStart < 0 {
            guard own.pointee.transportRolling && own.pointee.rollStartSeen else {
                own.pointee.requests.start = Int64(FrameTime.advance(reading, by: 1 << 30))
                own.pointee.awaitingTrigger = true
                return
            }
            let roll = own.pointee.rollFrame
            let start = preRollStart(for: roll, current: alignedReading)
            own.pointee.transportStart = Int64(start)
            own.pointee.awaitingTrigger = false
            emit(CaptureEventRecord.transportRolledKind, frameTime: roll,
                 position: Int64(max(0, FrameTime.distance(from: start, to: roll))),
                 value: Int64(own.pointee.rollTransportFrame), extra: own.pointee.rollBBT)
        }
        own.pointee.requests.start = own.pointee.transportStart
        if own.pointee.transportStop < 0 && !own.pointee.transportRolling {
            own.pointee.transportStop = Int64(own.pointee.stopFrame)
        }
        stopNoLaterThan(own.pointee.transportStop)
    }

    /// A stop decided by the callback (the transport's, the trigger's), unless one asked for
    /// comes first.
    @_noAllocation @_noLocks
    private func stopNoLaterThan(_ stop: Int64) {
        guard stop >= 0 else { return }
        let asked = own.pointee.requests.stop
        if asked == Self.noRequest
            || FrameTime.distance(from: UInt32(truncatingIfNeeded: stop), to: UInt32(truncatingIfNeeded: asked)) > 0 {
            own.pointee.requests.stop = stop
        }
    }

    /// Where a take started by something at frame `trigger` begins: a pre-roll earlier, but no
    /// earlier than the oldest frame the callback still holds (the pre-roll is as long as the
    /// take has been waiting, at most).
    @_noAllocation @_noLocks
    private func preRollStart(for trigger: UInt32, current: UInt32) -> UInt32 {
        let wanted = FrameTime.advance(trigger, by: -own.pointee.preRollFrames)
        var earliest = current
        if own.pointee.preRoll.count > 0 {
            earliest = own.pointee.preRoll[0].start
        } else if own.pointee.timeline.count > 0 {
            earliest = FrameTime.advance(own.pointee.timeline[0].reading, by: -own.pointee.alignment)
        }
        if FrameTime.distance(from: earliest, to: trigger) < 0 { earliest = trigger }
        return FrameTime.distance(from: wanted, to: earliest) > 0 ? earliest : wanted
    }

    /// For a take started by a cue (a key, with a pre-roll): it starts a pre-roll before the frame
    /// the cue names. Until then the start reads as 2^30 frames ahead.
    @_noAllocation @_noLocks
    private func followCue(reading: UInt32) {
        if own.pointee.cueStart < 0 {
            let cue = requestedCue.load(ordering: .acquiring)
            guard cue >= 0 else {
                own.pointee.requests.start = Int64(FrameTime.advance(reading, by: 1 << 30))
                own.pointee.awaitingTrigger = true
                return
            }
            // A cue named before the frames still held starts as early as they go; one named
            // ahead of this cycle starts there.
            let frame = UInt32(truncatingIfNeeded: cue)
            let start = preRollStart(for: frame, current: reading)
            own.pointee.cueStart = Int64(start)
            own.pointee.awaitingTrigger = false
            emit(CaptureEventRecord.triggeredKind, frameTime: frame,
                 position: Int64(max(0, FrameTime.distance(from: start, to: frame))))
        }
        own.pointee.requests.start = own.pointee.cueStart
    }

    /// For a take started by sound: it starts on the first sample of any channel at
    /// or above the level, a pre-roll earlier, and with a stop length ends that many frames after
    /// the last sample at or above it. Until then the start reads as 2^30 frames ahead.
    @_noAllocation @_noLocks
    private func followTrigger(reading: UInt32, frames n: Int) {
        let level = own.pointee.triggerLevel
        if own.pointee.triggerStart < 0 {
            var first = -1
            var channel = 0
            while channel < channelCount {
                if let port = ports[channel], let buffer = jack_port_get_buffer(port, UInt32(n)) {
                    let searched = first < 0 ? n : first
                    let index = LevelTrigger.firstIndex(atOrAbove: level, in: UnsafePointer(buffer.assumingMemoryBound(to: Float.self)),
                                                        count: searched)
                    if index >= 0 { first = index }
                }
                channel += 1
            }
            guard first >= 0 else {
                own.pointee.requests.start = Int64(FrameTime.advance(reading, by: 1 << 30))
                own.pointee.awaitingTrigger = true
                return
            }
            let trigger = FrameTime.advance(reading, by: first)
            let start = preRollStart(for: trigger, current: reading)
            own.pointee.triggerFrame = Int64(trigger)
            own.pointee.triggerStart = Int64(start)
            own.pointee.lastLoudFrame = trigger
            own.pointee.awaitingTrigger = false
            emit(CaptureEventRecord.triggeredKind, frameTime: trigger,
                 position: Int64(max(0, FrameTime.distance(from: start, to: trigger))))
        }
        own.pointee.requests.start = own.pointee.triggerStart
        if own.pointee.triggerStopFrames > 0 && own.pointee.triggerStop < 0 {
            var last = -1
            var channel = 0
            while channel < channelCount {
                if let port = ports[channel], let buffer = jack_port_get_buffer(port, UInt32(n)) {
                    let index = LevelTrigger.lastIndex(atOrAbove: level, in: UnsafePointer(buffer.assumingMemoryBound(to: Float.self)),
                                                       count: n)
                    if index > last { last = index }
                }
                channel += 1
            }
            if last >= 0 {
                let loud = FrameTime.advance(reading, by: last)
                if FrameTime.distance(from: own.pointee.lastLoudFrame, to: loud) > 0 { own.pointee.lastLoudFrame = loud }
            }
            if let stop = LevelTrigger.stopFrame(lastLoud: own.pointee.lastLoudFrame, quietFrames: own.pointee.triggerStopFrames,
                                                 cycleEnd: FrameTime.advance(reading, by: n)) {
                own.pointee.triggerStop = Int64(stop)
            }
        }
        stopNoLaterThan(own.pointee.triggerStop)
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
        var decision = ClockStart.Decision.later
        if let cycle = CycleTimes.current(of: client) {
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
        if own.pointee.awaitingTrigger && own.pointee.preRollFrames > 0 { return true }
        let requests = own.pointee.requests
        let planner = own.pointee.planner
        if requests.stop != Self.noRequest && planner.hasPlannedACycle {
            let earliestStart = FrameTime.advance(planner.nextFrame,
                                                  by: own.pointee.timeline.pendingFrames + own.pointee.preRoll.frames)
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
    /// once, not once to copy and once to measure). Returns the first and last channel whose port
    /// buffer, or the count of sources mixed into it, changed since the cycle copied before (-1:
    /// none), each marked with `serial`.
    @_noAllocation @_noLocks
    private func stageCycle(frameCount nframes: UInt32, at offset: Int, metering: Bool, serial: Int64)
        -> (first: Int, last: Int) {
        let channelBytes = Int(nframes) * MemoryLayout<Float>.stride
        var at = offset + CaptureBlockHeader.byteCount
        var changed = (first: -1, last: -1)
        let known = own.pointee.inputBuffersKnown
        own.pointee.inputBuffersKnown = true
        for channel in 0..<channelCount {
            if let port = ports[channel], let buffer = jack_port_get_buffer(port, nframes) {
                var change = false
                if own.pointee.inputBuffers[channel] != buffer {
                    change = true
                    own.pointee.inputBuffers[channel] = buffer
                    own.pointee.inputSources[channel] = jack_port_connected(port)
                } else if own.pointee.inputSources[channel] >= 2 {
                    // A mix of sources stays in the port's own buffer: a source added to it or
                    // taken from it changes only their count.
                    let sources = jack_port_connected(port)
                    change = sources != own.pointee.inputSources[channel]
                    own.pointee.inputSources[channel] = sources
                }
                if change && known {
                    own.pointee.noteInputChange(channel: channel, serial: serial)
                    if changed.first < 0 { changed.first = channel }
                    changed.last = channel
                }
                // The whole buffer asked for before the copy reads it: the source's client wrote
                // it, perhaps on the other CPU, and line by line each read waited in turn.
                jcap_prefetch(buffer, channelBytes)
                if metering {
                    let samples = UnsafePointer(buffer.assumingMemoryBound(to: Float.self))
                    let pieces = ring.stagingPieces(byteCount: channelBytes, at: at)
                    let firstCount = pieces.firstByteCount / MemoryLayout<Float>.stride
                    let inAVX2 = meters.copiesInAVX2
                    var cycle = MeterAccumulators.copyMeasuring(samples, into: pieces.first, count: firstCount,
                                                                inAVX2: inAVX2)
                    if firstCount < Int(nframes) {
                        cycle = cycle.combined(with: MeterAccumulators.copyMeasuring(
                            samples + firstCount, into: pieces.second, count: Int(nframes) - firstCount, inAVX2: inAVX2))
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
        delayStagedChannels(frameCount: nframes, at: offset)
        return changed
    }

    /// Delays the staged frames of each channel that has a delay line (`LatencyAlignment`), in
    /// place in the ring.
    @_noAllocation @_noLocks
    private func delayStagedChannels(frameCount nframes: UInt32, at offset: Int) {
        guard let set = own.pointee.delayLines else { return }
        let channelBytes = Int(nframes) * MemoryLayout<Float>.stride
        var slot = 0
        while slot < set.pointee.count {
            let line = set.pointee.lines + slot
            let at = offset + CaptureBlockHeader.byteCount + line.pointee.channel * channelBytes
            let pieces = ring.stagingPieces(byteCount: channelBytes, at: at)
            let firstCount = pieces.firstByteCount / MemoryLayout<Float>.stride
            DelayLineSet.delayInPlace(line, pieces.first.assumingMemoryBound(to: Float.self), count: firstCount)
            if firstCount < Int(nframes) {
                DelayLineSet.delayInPlace(line, pieces.second.assumingMemoryBound(to: Float.self),
                                          count: Int(nframes) - firstCount)
            }
            slot += 1
        }
    }

    /// Feeds a cycle that is not copied through the delay lines, which must hold the frames just
    /// before the take's first.
    @_noAllocation @_noLocks
    private func feedDelayLines(frameCount nframes: UInt32) {
        guard let set = own.pointee.delayLines else { return }
        var slot = 0
        while slot < set.pointee.count {
            let line = set.pointee.lines + slot
            if let port = ports[line.pointee.channel], let buffer = jack_port_get_buffer(port, nframes) {
                DelayLineSet.feed(line, UnsafePointer(buffer.assumingMemoryBound(to: Float.self)), count: Int(nframes))
            }
            slot += 1
        }
    }

    /// Plans every cycle read and not yet planned, with what is known now: when the sample rate
    /// changed (the cycles after it do not belong to the take), or after a shutdown.
    @_noAllocation @_noLocks
    private func planEveryPendingCycle() {
        while own.pointee.preRoll.count > 0 && !own.pointee.planner.isFinished {
            plan(own.pointee.preRoll.removeOldest())
        }
        while own.pointee.timeline.count > 0 && !own.pointee.planner.isFinished {
            plan(placeOldest())
        }
        own.pointee.preRoll.removeAll()
        own.pointee.timeline.removeAll()
    }

    /// Places the oldest cycle read (finds its true frame time) and plans it, or, while a take
    /// waits for its trigger with a pre-roll, holds it with the last pre-roll's worth of cycles
    /// and plans only the ones older than that.
    @_noAllocation @_noLocks
    private func placeOldestCycle() {
        let placed = placeOldest()
        if own.pointee.awaitingTrigger && own.pointee.preRollFrames > 0 {
            own.pointee.preRoll.append(placed)
            while own.pointee.preRoll.holdsMoreThan(own.pointee.preRollFrames) && !own.pointee.planner.isFinished {
                plan(own.pointee.preRoll.removeOldest())
            }
        } else {
            while own.pointee.preRoll.count > 0 && !own.pointee.planner.isFinished {
                plan(own.pointee.preRoll.removeOldest())
            }
            if !own.pointee.planner.isFinished { plan(placed) }
        }
        if own.pointee.planner.isFinished {
            // Later cycles staged behind the take's end are never published.
            own.pointee.preRoll.removeAll()
            own.pointee.timeline.removeAll()
        }
    }

    /// Takes the oldest cycle read out of the timeline with its true first frame, on JACK's clock
    /// and in the take's time (`alignment` behind).
    @_noAllocation @_noLocks
    private func placeOldest() -> PlacedCycle {
        let (placement, cycle) = own.pointee.timeline.placeOldest()
        if FrameTime.distance(from: placement.start, to: cycle.reading) > 0 {
            _ = lateCycles.loadThenWrappingIncrement(ordering: .relaxed)
        }
        return PlacedCycle(placement: placement, start: FrameTime.advance(placement.start, by: -own.pointee.alignment),
                           cycle: cycle)
    }

    /// Asks the planner what to do with a placed cycle, publishes its block (or counts it lost)
    /// and the plan's events. The frames of the cycle that fall on frames already placed (its
    /// `overlap`) are left out; the planner sees the rest.
    @_noAllocation @_noLocks
    private func plan(_ placed: PlacedCycle) {
        let arrival = placed.arrival
        let cycle = placed.cycle
        let cycleStart = placed.start
        let overlap = placed.placement.overlap
        var requests = own.pointee.requests
        requests.sampleRateChanged = cycle.afterRateChange
        let misplaced = Int64(placed.placement.misplacedBefore)
        if misplaced > 0 && own.pointee.planner.hasStarted {
            // A reading proved the frames just placed late: said, with where they are.
            let position = own.pointee.planner.position
            emit(CaptureEventRecord.placementUncertainKind, frameTime: FrameTime.advance(cycleStart, by: overlap),
                 position: max(0, position - misplaced), value: min(misplaced, position))
        }
        let plan = own.pointee.planner.plan(cycleStart: FrameTime.advance(cycleStart, by: overlap),
                                            frames: cycle.frames - overlap, requests: requests, renumbered: cycle.renumbered)
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
            && (FrameTime.distance(from: arrival, to: cycle.readingAfterCopy) >= cycle.frames || cycle.copyMetNextPackets) {
            // Copied once JACK had begun a later cycle (or, on a NetJACK2 slave, when the next
            // cycle's packets may have been arriving): placed right, but its source may have
            // written the next period into the shared buffer first. Said, so it is never hidden.
            let first = plan.spans[0]
            emit(CaptureEventRecord.lateCopyKind, frameTime: FrameTime.advance(cycleStart, by: overlap + first.offset),
                 position: first.position, value: Int64(copied))
        }
        if timecodePort != nil && copied > 0 {
            followMasterClock(placed, plan: plan, copied: copied)
        } else if onNetJackSlave && timecodePort == nil {
            let settled = own.pointee.linkDropouts.observe(start: placed.placement.start, time: cycle.callbackTime, frames: cycle.frames,
                                                           position: copied > 0 ? plan.spans[0].position : nil, sampleRate: sampleRate)
            if let settled { emitLinkDropout(settled) }
        }
        if cycle.firstChangedInput >= 0 && copied > 0 {
            // The cycle's ports read from new sources from its first frame: from the take's first
            // frame of it on.
            let first = plan.spans[0]
            emitInputChanges(of: cycle, frameTime: FrameTime.advance(cycleStart, by: overlap + first.offset),
                             position: first.position)
        }
        if placed.placement.guessed && copied > 0 {
            // The readings could not decide where this period goes: said, never hidden.
            let first = plan.spans[0]
            emit(CaptureEventRecord.placementUncertainKind, frameTime: FrameTime.advance(cycleStart, by: overlap + first.offset),
                 position: first.position, value: Int64(copied))
        }
        if cycle.stagedBytes > 0 {
            if copied > 0 || own.pointee.timeline.stagedBytes + own.pointee.preRoll.stagedBytes > 0
                || own.pointee.split.segmentStartCount > 0 {
                // Published even with nothing in it when later blocks are staged behind it (the
                // writer skips it; the ring stays one run of blocks), or to carry a split.
                commitBlock(of: cycle, startingAt: cycleStart, skipping: overlap, plan: plan)
            }
        } else if copied > 0 {
            // The ring had no room when the cycle came (the disk fell behind): its frames are
            // lost, and the writer writes silence in their place.
            _ = overrunFrames.loadThenWrappingIncrement(by: Int64(copied), ordering: .relaxed)
            _ = overrunCycles.loadThenWrappingIncrement(ordering: .relaxed)
            let first = plan.spans[0]
            emit(CaptureEventRecord.overrunKind, frameTime: FrameTime.advance(cycleStart, by: overlap + first.offset),
                 position: first.position, value: Int64(copied))
        }
        if onNetJackSlave && timecodePort == nil && own.pointee.planner.isFinished, let settling = own.pointee.linkDropouts.finish() {
            // The take ended while the cycles after a dropout were settling: said as it stands.
            emitLinkDropout(settling)
        }
        position.store(own.pointee.planner.position, ordering: .releasing)
        phase.store(own.pointee.planner.phase.capturePhaseRawValue, ordering: .releasing)
    }

    /// Decodes this cycle's timecode (`MasterTimecode`) for the cycle's plan, and publishes the
    /// offset to the master's clock once two cycles in a row read it alike (for a start named
    /// on the master's clock).
    @_noAllocation @_noLocks
    private func readTimecode(frameCount nframes: UInt32) {
        var master: Int64 = -1
        if let port = timecodePort, let buffer = jack_port_get_buffer(port, nframes),
           let first = MasterTimecode.firstFrameTime(of: UnsafePointer(buffer.assumingMemoryBound(to: Float.self)), count: Int(nframes)) {
            master = Int64(first)
        }
        own.pointee.cycleMasterFrame = master
        var offset: Int64 = -1
        if master >= 0 { offset = Int64(UInt32(truncatingIfNeeded: master) &- jack_last_frame_time(client)) }
        let steady = offset >= 0 && offset == own.pointee.lastMasterOffset
        own.pointee.lastMasterOffset = offset
        masterOffset.store(steady ? offset : Self.noRequest, ordering: .relaxed)
    }

    /// Follows a placed cycle with frames in the take on the master's clock: a jump of it is
    /// said at the cycle's first frame in the take, and a cycle whose timecode did not decode is
    /// on no known master frame, so its frames are said to be of uncertain placement.
    @_noAllocation @_noLocks
    private func followMasterClock(_ placed: PlacedCycle, plan: CyclePlan, copied: Int) {
        let cycle = placed.cycle
        let first = plan.spans[0]
        let frameTime = FrameTime.advance(placed.start, by: placed.placement.overlap + first.offset)
        let master: UInt32? = cycle.masterFrame < 0 ? nil : UInt32(truncatingIfNeeded: cycle.masterFrame)
        switch own.pointee.masterClock.observe(start: placed.placement.start, masterFrame: master) {
        case .steady:
            break
        case .jumped(let frames):
            emit(CaptureEventRecord.masterClockJumpKind, frameTime: frameTime, position: first.position, value: frames)
        case .unreadable:
            emit(CaptureEventRecord.placementUncertainKind, frameTime: frameTime, position: first.position, value: Int64(copied))
        }
    }

    /// Publishes, for each channel whose port buffer changed in `cycle`, where the change lands in
    /// the take (paired with JACK's announcement by `ConnectionPlacement`): a channel delayed for
    /// latency alignment holds it its delay later.
    @_noAllocation @_noLocks
    private func emitInputChanges(of cycle: PendingCycle, frameTime: UInt32, position: Int64) {
        var channel = cycle.firstChangedInput
        while channel <= cycle.lastChangedInput {
            if own.pointee.inputChanged(channel: channel, serial: cycle.serial) {
                let delay = delayLength(of: channel)
                emit(CaptureEventRecord.inputChangedKind, frameTime: FrameTime.advance(frameTime, by: delay),
                     position: position + Int64(delay), value: Int64(channel), extra: Int64(cycle.frames))
            }
            channel += 1
        }
    }

    /// The frames a channel is delayed by for latency alignment (0: not delayed).
    @_noAllocation @_noLocks
    private func delayLength(of channel: Int) -> Int {
        guard let set = own.pointee.delayLines else { return 0 }
        var slot = 0
        while slot < set.pointee.count {
            if set.pointee.lines[slot].channel == channel { return set.pointee.lines[slot].length }
            slot += 1
        }
        return 0
    }

    /// Publishes a NetJACK2 link dropout (`LinkDropout`) at its take position.
    @_noAllocation @_noLocks
    private func emitLinkDropout(_ dropout: LinkDropout) {
        emit(CaptureEventRecord.linkDropoutKind, frameTime: dropout.baselineStart, position: dropout.position, value: dropout.frames)
    }

    /// Writes the block's header in front of its staged frames and publishes the block. The plan's
    /// spans count from the cycle's frame `overlap`.
    @_noAllocation @_noLocks
    private func commitBlock(of cycle: PendingCycle, startingAt cycleStart: UInt32, skipping overlap: Int, plan: CyclePlan) {
        let header = own.pointee.header
        header.pointee = CaptureBlockHeader(take: own.pointee.take, frameCount: Int32(cycle.frames), frameTime: cycleStart)
        var index = 0
        while index < plan.spanCount {
            let span = plan.spans[index]
            header.pointee.append(BlockSpan(offset: Int32(overlap + span.offset), count: Int32(span.count), position: span.position))
            index += 1
        }
        attachSegmentStart(to: header)
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
    func emit(_ kind: Int32, frameTime: UInt32, position: Int64, value: Int64 = 0, extra: Int64 = 0) {
        let record = own.pointee.eventRecord
        record.pointee.kind = kind
        record.pointee.frameTime = frameTime
        record.pointee.position = position
        record.pointee.value = value
        record.pointee.extra = extra
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
        if onNetJackSlave && timecodePort == nil, let settling = own.pointee.linkDropouts.finish() { emitLinkDropout(settling) }
    }
}
