import Atomics
import CJack

/// JACK's process callback for a player (jack_set_process_callback); `argument` is the player's
/// `PlayerProcessState`. Each cycle it follows the owner's command and seek, decides a pending
/// start (`PlaybackStart`, `ClockStart`), and copies whole cycles of frames from the rings to the
/// output ports: nothing else. Everything here is `@_noAllocation @_noLocks`.
@_noAllocation @_noLocks
func playerProcessCallback(_ frameCount: jack_nframes_t, _ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    argument.assumingMemoryBound(to: PlayerProcessState.self).pointee.runCycle(frameCount: Int(frameCount))
    return 0
}

/// jack_set_xrun_callback: counted for the console (JACK 2 calls it on the process thread).
@_noAllocation @_noLocks
func playerXrunCallback(_ argument: UnsafeMutableRawPointer?) -> Int32 {
    guard let argument else { return 0 }
    _ = argument.assumingMemoryBound(to: PlayerProcessState.self).pointee.xruns.loadThenWrappingIncrement(ordering: .relaxed)
    return 0
}

/// jack_on_info_shutdown: the server is gone; the owner's thread reports it.
func playerShutdownCallback(_ code: jack_status_t, _ reason: UnsafePointer<CChar>?, _ argument: UnsafeMutableRawPointer?) {
    guard let argument else { return }
    argument.assumingMemoryBound(to: PlayerProcessState.self).pointee.serverGone.store(true, ordering: .releasing)
}

extension PlayerProcessState {
    // `PlaybackPhase` raw values (the enum's metadata is not for the real-time thread).
    static var idle: Int { @_noAllocation @_noLocks get { 0 } }
    static var waiting: Int { @_noAllocation @_noLocks get { 1 } }
    static var playing: Int { @_noAllocation @_noLocks get { 2 } }

    @_noAllocation @_noLocks
    func runCycle(frameCount n: Int) {
        silenceOutputs(frames: n)
        let wasPlaying = own.pointee.phase == Self.playing
        followSeek()
        followCommand()
        let reading = jack_last_frame_time(client)
        if own.pointee.phase != Self.playing {
            // Not playing (paused, or waiting for the start): blocks read before a seek are
            // dropped now, so the reader refills the rings from the new position before playing.
            for index in 0..<sourceCount { dropStaleBlocks(source: index) }
        }
        // Before a start is decided, and in the cycle playing starts: a start plays at the gain
        // asked for, not a ramp to it (also when the gain was set a moment before `play()`).
        followGains(playing: wasPlaying && own.pointee.phase == Self.playing)
        var offset = 0
        if own.pointee.phase == Self.waiting {
            guard let start = decideStart(reading: reading, frames: n) else {
                publish()
                if meteringEnabled.load(ordering: .relaxed) { measureOutputs(frames: n) }
                return
            }
            offset = start
        }
        if own.pointee.phase == Self.playing { play(from: offset, frames: n, reading: reading) }
        publish()
        if meteringEnabled.load(ordering: .relaxed) { measureOutputs(frames: n) }
    }

    /// Feeds what each port plays this cycle (after gain, silence included) to the meters.
    @_noAllocation @_noLocks
    private func measureOutputs(frames n: Int) {
        meters.beginCycle()
        var index = 0
        while index < portCount {
            if let buffer = jack_port_get_buffer(ports[index], UInt32(n)) {
                meters.measure(channel: index, samples: UnsafePointer(buffer.assumingMemoryBound(to: Float.self)), count: n)
            }
            index += 1
        }
        meters.finishCycle(frames: n)
    }

    @_noAllocation @_noLocks
    private func publish() {
        phase.store(own.pointee.phase, ordering: .relaxed)
        generation.store(own.pointee.generation, ordering: .relaxed)
        position.store(own.pointee.position, ordering: .releasing)
    }

    /// Each port heads for its target gain: over `rampFrames` while playing, at once while not.
    @_noAllocation @_noLocks
    private func followGains(playing: Bool) {
        for index in 0..<gainCount {
            let target = Float(bitPattern: targetGains[index].load(ordering: .relaxed))
            gains[index].retarget(target, frames: playing ? rampFrames : 0)
            if !playing { gains[index].snap() }
        }
    }

    @_noAllocation @_noLocks
    private func silenceOutputs(frames n: Int) {
        for index in 0..<portCount {
            guard let buffer = jack_port_get_buffer(ports[index], UInt32(n)) else { continue }
            buffer.initializeMemory(as: Float.self, repeating: 0, count: n)
        }
    }

    /// A new seek generation: blocks of older ones are dropped as they come to the front, and
    /// the position is the seek's frame.
    @_noAllocation @_noLocks
    private func followSeek() {
        let request = SeekRequest(packed: seek.load(ordering: .acquiring))
        guard request.generation != own.pointee.generation else { return }
        closeUnderrun()
        own.pointee.generation = request.generation
        if request.isFromPlayingFrame {
            // The position stays: the frame due next is where the reader starts again.
            resumedSeek.store(SeekRequest(generation: request.generation, frame: own.pointee.position).packed,
                              ordering: .releasing)
        } else {
            own.pointee.position = request.frame
        }
        own.pointee.seekFilling = true
        for index in 0..<sourceCount { cursors[index] = PlaybackSourceCursor() }
    }

    @_noAllocation @_noLocks
    private func followCommand() {
        let word = command.load(ordering: .acquiring)
        guard word != own.pointee.command else { return }
        own.pointee.command = word
        let command = PlaybackRequest(packed: word)
        switch command.kind {
        case .pause:
            closeUnderrun()
            own.pointee.phase = Self.idle
        case .playNow:
            startPlaying(frame: jack_last_frame_time(client), late: 0)
        case .playAtFrame:
            own.pointee.phase = Self.waiting
            own.pointee.startFrame = command.frame
            own.pointee.clockStartFrame = -1
            own.pointee.startAsked = false
        case .playAtClock:
            own.pointee.phase = Self.waiting
            own.pointee.clockStartFrame = -2
            own.pointee.startAsked = false
        }
    }

    @_noAllocation @_noLocks
    private func startPlaying(frame: UInt32, late: Int) {
        own.pointee.phase = Self.playing
        startedFrame.store(Int64(frame), ordering: .relaxed)
        lateStartFrames.store(Int64(late), ordering: .relaxed)
    }

    /// Whether the pending start falls in this cycle: the frame offset it starts at, or nil.
    @_noAllocation @_noLocks
    private func decideStart(reading: UInt32, frames n: Int) -> Int? {
        if own.pointee.clockStartFrame == -2 {
            // A moment on JACK's clock: its frame is decided in the cycle it falls in.
            guard let cycle = CycleTimes.current(of: client) else { return nil }
            let decision = ClockStart.decide(nanoseconds: clockStart.load(ordering: .relaxed), in: cycle,
                                             frames: n, firstCycle: !own.pointee.startAsked)
            own.pointee.startAsked = true
            guard case .frame(let start) = decision else { return nil }
            own.pointee.clockStartFrame = Int64(start)
            own.pointee.startFrame = start
            own.pointee.startAsked = false
        }
        let decision = PlaybackStart.decide(startFrame: own.pointee.startFrame, cycleFrame: reading,
                                            frames: n, firstCycle: !own.pointee.startAsked)
        own.pointee.startAsked = true
        switch decision {
        case .later:
            return nil
        case .inCycle(let offset):
            startPlaying(frame: FrameTime.advance(reading, by: offset), late: 0)
            return offset
        case .passed(let frames):
            startPlaying(frame: reading, late: frames)
            return 0
        }
    }

    /// Plays frames `offset..<n` of the cycle: every source copies the same frames, or, when one
    /// of them has not got them all yet, none does and the cycle's rest is silence (an underrun,
    /// or the reader catching up with a seek).
    @_noAllocation @_noLocks
    private func play(from offset: Int, frames n: Int, reading: UInt32) {
        let needed = n - offset
        guard needed > 0 else { return }
        var allEnded = true
        for index in 0..<sourceCount {
            let available = availableFrames(source: index, needed: needed)
            if available < needed {
                let silentFrom = FrameTime.advance(reading, by: offset)
                if own.pointee.seekFilling {
                    _ = seekSilenceFrames.loadThenWrappingIncrement(by: needed, ordering: .relaxed)
                } else {
                    noteUnderrun(frames: needed, at: silentFrom)
                }
                return
            }
            if !cursors[index].ended { allEnded = false }
        }
        if allEnded {
            finish()
            return
        }
        closeUnderrun()
        own.pointee.seekFilling = false
        var lead = -1
        for index in 0..<sourceCount where !cursors[index].ended {
            if lead < 0 { lead = index }
            copy(source: index, frames: needed, to: offset, cycleFrames: n)
        }
        // The position is the first still-playing source's (all share the rate, so their file
        // frames agree); when the last ones ended in this cycle, where the first of them ended.
        for index in 0..<sourceCount where !cursors[index].ended {
            lead = index
            break
        }
        own.pointee.position = cursors[lead].position
        // Every source ended within the cycle: finished now, not a cycle later.
        var ended = true
        for index in 0..<sourceCount where !cursors[index].ended {
            if !reachesEnd(source: index) { ended = false }
        }
        if ended { finish() }
    }

    @_noAllocation @_noLocks
    private func finish() {
        closeUnderrun()
        own.pointee.phase = Self.idle
        _ = finishedCount.loadThenWrappingIncrement(ordering: .releasing)
    }

    /// The front block's header (the caller checked a block is there).
    @_noAllocation @_noLocks
    private func header(of ring: RingBuffer, at byteOffset: Int) -> PlaybackBlockHeader {
        var header = PlaybackBlockHeader(generation: 0, position: 0, frames: 0)
        withUnsafeMutableBytes(of: &header) { bytes in
            ring.peek(into: bytes.baseAddress!, byteCount: PlaybackBlockHeader.fieldByteCount, at: byteOffset)
        }
        return header
    }

    /// Frames of the current generation the source can supply now, counting up to `needed`
    /// (`needed` when it has ended: its silence is always there). Stale blocks at the front are
    /// dropped on the way.
    @_noAllocation @_noLocks
    private func availableFrames(source index: Int, needed: Int) -> Int {
        if cursors[index].ended { return needed }
        let source = sources[index]
        let generation = own.pointee.generation
        dropStaleBlocks(source: index)
        let readable = source.ring.readableByteCount()
        var total = 0
        var byteOffset = 0
        while total < needed && byteOffset + source.blockBytes <= readable {
            let block = header(of: source.ring, at: byteOffset)
            guard block.generation == generation else { break }
            if block.isEnd {
                if byteOffset == 0 {
                    cursors[index].ended = true
                    return needed
                }
                // The end is on its way: the frames before it, then silence.
                return needed
            }
            total += Int(block.frames) - (byteOffset == 0 ? cursors[index].frontOffset : 0)
            byteOffset += source.blockBytes
        }
        return min(total, needed)
    }

    /// Drops the blocks at the front of the source's ring that were read before the current seek.
    @_noAllocation @_noLocks
    private func dropStaleBlocks(source index: Int) {
        let source = sources[index]
        var readable = source.ring.readableByteCount()
        while readable >= source.blockBytes {
            let front = header(of: source.ring, at: 0)
            guard SeekRequest.isStale(blockGeneration: front.generation, current: own.pointee.generation) else { return }
            source.ring.commitRead(byteCount: source.blockBytes)
            cursors[index].frontOffset = 0
            readable -= source.blockBytes
        }
    }

    /// Whether the source's next block is its end block.
    @_noAllocation @_noLocks
    private func reachesEnd(source index: Int) -> Bool {
        let source = sources[index]
        guard source.ring.readableByteCount() >= source.blockBytes else { return false }
        let front = header(of: source.ring, at: 0)
        guard front.generation == own.pointee.generation, front.isEnd else { return false }
        cursors[index].ended = true
        return true
    }

    /// Copies `frames` frames (which `availableFrames` found) to the source's ports from cycle
    /// frame `offset` on, consuming whole blocks as they are emptied.
    @_noAllocation @_noLocks
    private func copy(source index: Int, frames: Int, to offset: Int, cycleFrames n: Int) {
        let source = sources[index]
        let channels = source.channels
        var done = 0
        while done < frames {
            let block = header(of: source.ring, at: 0)
            if block.isEnd {
                cursors[index].ended = true
                return
            }
            guard let base = source.ring.readPointer(at: 0, byteCount: source.blockBytes) else { return }
            let samples = (base + PlaybackBlockHeader.byteCount).assumingMemoryBound(to: Float.self)
            let first = cursors[index].frontOffset
            let count = min(Int(block.frames) - first, frames - done)
            if source.mixes {
                mix(UnsafePointer(samples + first * channels), channels: channels, frames: count, source: source, to: offset + done, cycleFrames: n)
            }
            for port in 0..<source.portCount where !source.mixes {
                let portIndex = source.firstPort + port
                guard let buffer = jack_port_get_buffer(ports[portIndex], UInt32(n)) else { continue }
                let out = buffer.assumingMemoryBound(to: Float.self) + offset + done
                var sample = samples + first * channels + min(port, channels - 1)
                for frame in 0..<count {
                    out[frame] = sample.pointee * gains[portIndex].next()
                    sample += channels
                }
            }
            done += count
            cursors[index].frontOffset += count
            cursors[index].position = block.position(atOffset: cursors[index].frontOffset)
            if cursors[index].frontOffset >= Int(block.frames) {
                source.ring.commitRead(byteCount: source.blockBytes)
                cursors[index].frontOffset = 0
            }
        }
    }

    /// Adds `frames` frames of a source to the mix's two ports (`PlaybackMix`): a mono source
    /// to both, a source of more channels its odd channels (1, 3, ...) left and its even ones
    /// right, each port at the source's own gain for it.
    @_noAllocation @_noLocks
    private func mix(_ samples: UnsafePointer<Float>, channels: Int, frames count: Int, source: PlaybackSourceState,
                     to start: Int, cycleFrames n: Int) {
        for output in 0..<min(portCount, 2) {
            guard let buffer = jack_port_get_buffer(ports[output], UInt32(n)) else { continue }
            let out = buffer.assumingMemoryBound(to: Float.self) + start
            let gainIndex = source.firstGain + output
            let firstChannel = channels == 1 ? 0 : output
            let step = channels == 1 ? 1 : 2
            for frame in 0..<count {
                let gain = gains[gainIndex].next()
                var sum: Float = 0
                var channel = firstChannel
                while channel < channels {
                    sum += samples[frame * channels + channel]
                    channel += step
                }
                out[frame] += sum * gain
            }
        }
    }

    @_noAllocation @_noLocks
    private func noteUnderrun(frames: Int, at jackFrame: UInt32) {
        _ = underrunFrames.loadThenWrappingIncrement(by: frames, ordering: .relaxed)
        if own.pointee.underrunPosition < 0 {
            own.pointee.underrunPosition = own.pointee.position
            own.pointee.underrunFrame = jackFrame
            own.pointee.underrunFrames = 0
        }
        own.pointee.underrunFrames += frames
    }

    /// Reports the underrun in progress, if any, now that it is over.
    @_noAllocation @_noLocks
    private func closeUnderrun() {
        guard own.pointee.underrunPosition >= 0 else { return }
        var record = PlaybackUnderrunRecord(position: own.pointee.underrunPosition,
                                            jackFrame: Int64(own.pointee.underrunFrame),
                                            frames: Int64(own.pointee.underrunFrames))
        own.pointee.underrunPosition = -1
        guard events.writableByteCount() >= PlaybackUnderrunRecord.byteCount else {
            _ = droppedEvents.loadThenWrappingIncrement(ordering: .relaxed)
            return
        }
        withUnsafeBytes(of: &record) { bytes in
            events.stage(from: bytes.baseAddress!, byteCount: PlaybackUnderrunRecord.byteCount, at: 0)
        }
        events.commitWrite(byteCount: PlaybackUnderrunRecord.byteCount)
    }
}
