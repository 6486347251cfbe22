/// What other threads have asked of the take, as the process callback loaded it for one cycle.
/// Frame times are JACK frame times; `none` means no request.
struct TakeRequests: Equatable {
    static var none: Int64 { @_noAllocation @_noLocks get { -1 } }

    /// The take's first frame, or `none`: the first cycle planned after arming, from its start.
    var start: Int64
    /// Frames to record (pauses excluded), or `none`: until stopped.
    var length: Int64
    /// The take ends just before this frame.
    var stop: Int64
    /// Recording pauses at this frame (the first frame not recorded).
    var pause: Int64
    /// A paused take resumes at this frame.
    var resume: Int64
    /// The server's sample rate changed before this cycle: the take ends at its first frame.
    var sampleRateChanged: Bool
    /// A new file begins at this frame (a clock-aligned split): the first frame of the
    /// take at or after it opens the next file.
    var split: Int64

    @_noAllocation @_noLocks
    init(start: Int64 = -1, length: Int64 = -1, stop: Int64 = -1, pause: Int64 = -1, resume: Int64 = -1,
         sampleRateChanged: Bool = false, split: Int64 = -1) {
        self.start = start
        self.length = length
        self.stop = stop
        self.pause = pause
        self.resume = resume
        self.sampleRateChanged = sampleRateChanged
        self.split = split
    }
}

/// Frames of one cycle that go into the take: `count` frames from `offset` in the cycle, at
/// `position` in the take.
struct CycleSpan: Equatable {
    var offset: Int
    var count: Int
    var position: Int64

    @_noAllocation @_noLocks
    init(offset: Int, count: Int, position: Int64) {
        self.offset = offset
        self.count = count
        self.position = position
    }
}

/// An event the plan publishes, as the event ring carries it (`CaptureEventRecord`).
struct PlannedEvent: Equatable {
    var kind: Int32
    var frameTime: UInt32
    var position: Int64
    var value: Int64

    @_noAllocation @_noLocks
    init(kind: Int32, frameTime: UInt32, position: Int64, value: Int64 = 0) {
        self.kind = kind
        self.frameTime = frameTime
        self.position = position
        self.value = value
    }
}

/// What to do with one cycle: the spans of it to copy into the take, the events to publish, and
/// which requests it used up. Fixed-size, so the process callback builds it without allocating.
struct CyclePlan {
    /// One cycle holds at most a start, a pause and a resume (each request slot is used once), so
    /// at most two spans; room for four.
    static var maximumSpans: Int { @_noAllocation @_noLocks get { 4 } }
    static var maximumEvents: Int { @_noAllocation @_noLocks get { 8 } }

    private(set) var spans = InlineArray<4, CycleSpan>(repeating: CycleSpan(offset: 0, count: 0, position: 0))
    private(set) var spanCount = 0
    private(set) var events = InlineArray<8, PlannedEvent>(repeating: PlannedEvent(kind: 0, frameTime: 0, position: 0))
    private(set) var eventCount = 0
    /// The pause request was acted on (the callback clears it).
    var consumedPause = false
    /// The resume request was acted on.
    var consumedResume = false
    /// Frames JACK's clock jumped over inside the take in this cycle (silence in the file).
    var skippedFrames: Int64 = 0
    /// The take ended in this cycle (or before its start, cancelled): no frame follows.
    var finished = false
    /// The split request was acted on: it landed (`splitPosition`), or fell at or before the
    /// take's first frame, where no file needs cutting.
    var consumedSplit = false
    /// The take position of the first frame of the next file, when the split landed in the take
    /// (-1: none in this cycle).
    var splitPosition: Int64 = -1

    @_noAllocation @_noLocks
    init() {}

    @_noAllocation @_noLocks
    mutating func copy(offset: Int, count: Int, position: Int64) {
        guard count > 0, spanCount < Self.maximumSpans else { return }
        spans[spanCount] = CycleSpan(offset: offset, count: count, position: position)
        spanCount += 1
    }

    @_noAllocation @_noLocks
    mutating func emit(_ kind: Int32, frameTime: UInt32, position: Int64, value: Int64 = 0) {
        guard eventCount < Self.maximumEvents else { return }
        events[eventCount] = PlannedEvent(kind: kind, frameTime: frameTime, position: position, value: value)
        eventCount += 1
    }

    /// Whether the plan publishes an event of `kind`.
    @_noAllocation @_noLocks
    func has(_ kind: Int32) -> Bool {
        var index = 0
        while index < eventCount {
            if events[index].kind == kind { return true }
            index += 1
        }
        return false
    }

    /// Frames of the cycle that go into the take.
    var copiedFrames: Int {
        @_noAllocation @_noLocks get {
            var total = 0
            var index = 0
            while index < spanCount {
                total += spans[index].count
                index += 1
            }
            return total
        }
    }
}

/// The decisions of a take, one cycle at a time, as a pure function of plain values: the cycle's
/// true first frame and length, the requests, and what the planner remembers of the cycles
/// before. The process callback only loads the requests, calls `plan`, copies what it says and
/// publishes; every rule about starting, stopping, pausing and xruns lives here, tested alone
/// (as Ardour's disk writer hands its decisions to `calculate_record_range`).
///
/// Frame times are compared as signed 32-bit differences (`FrameTime`), so a take that crosses
/// the wrap of JACK's 32-bit frame clock keeps every frame in order.
/// Where a take is, as the planner sees it.
enum TakePhase: Equatable {
    case waiting, recording, paused, finished, missedStart

    /// The `CapturePhase` raw value the callback publishes (`CyclePlannerTests` checks they
    /// match): a public enum's `rawValue` is a call the real-time checker cannot see into.
    var capturePhaseRawValue: Int {
        @_noAllocation @_noLocks get {
            switch self {
            case .waiting: 1
            case .recording: 2
            case .finished: 3
            case .missedStart: 4
            case .paused: 5
            }
        }
    }
}

struct CyclePlanner: Equatable {
    var phase: TakePhase = .waiting
    /// The take's first frame, once known.
    private(set) var start: UInt32 = 0
    /// Frames of the take so far, counting frames skipped by xruns.
    private(set) var position: Int64 = 0
    /// The take position where the current run of recorded frames began (the start or the last
    /// resume): a stop named in an earlier cycle cuts back no further than this.
    private(set) var segmentStart: Int64 = 0
    /// The frame just after the last cycle planned, once one has been.
    private(set) var nextFrame: UInt32 = 0
    private(set) var hasPlannedACycle = false
    /// JACK frame time just after the take's last frame, once it has finished.
    private(set) var endFrame: UInt32 = 0

    @_noAllocation @_noLocks
    init() {}

    /// The take has begun and not yet ended: its positions count frames placed in it.
    var hasStarted: Bool {
        @_noAllocation @_noLocks get {
            switch phase {
            case .recording, .paused: true
            case .waiting, .finished, .missedStart: false
            }
        }
    }

    var isFinished: Bool {
        @_noAllocation @_noLocks get {
            switch phase {
            case .finished, .missedStart: true
            case .waiting, .recording, .paused: false
            }
        }
    }

    /// Plans the cycle of `frames` frames whose first frame is `cycleStart`. Cycles come in order;
    /// a `cycleStart` past the end of the previous cycle means JACK's clock jumped over frames
    /// that reached no client (an xrun), one before it is treated as following on. A cycle JACK
    /// `renumbered` at a period change (`PendingCycle.renumbered`) follows on from the previous
    /// cycle's end moved by that much: the take goes on without a break, and says so.
    @_noAllocation @_noLocks
    mutating func plan(cycleStart: UInt32, frames n: Int, requests: TakeRequests, renumbered: Int = 0) -> CyclePlan {
        let before = self
        var plan = CyclePlan()
        if renumbered != 0 && hasPlannedACycle && !isFinished {
            nextFrame = FrameTime.advance(nextFrame, by: renumbered)
            if hasStarted { plan.emit(CaptureEventRecord.clockRenumberedKind, frameTime: cycleStart, position: position, value: Int64(renumbered)) }
        }
        planFrames(&plan, cycleStart: cycleStart, frames: n, requests: requests)
        if requests.split != TakeRequests.none {
            placeSplit(&plan, at: UInt32(truncatingIfNeeded: requests.split), cycleStart: cycleStart, frames: n,
                       requests: requests, before: before)
        }
        return plan
    }

    /// Where a split at JACK frame `frame` lands, once this cycle is planned: the take position of
    /// the first frame of the take at or after it. Frames JACK's clock skipped count as the take's
    /// (they are silence in its files), so a frame among them lands at its own place; a paused
    /// frame lands where recording resumes; a frame in a cycle already planned (a split decided
    /// late) lands on the first frame not yet planned. A split at or before the take's first frame
    /// cuts nothing; one after this cycle waits for a later one.
    @_noAllocation @_noLocks
    private func placeSplit(_ plan: inout CyclePlan, at frame: UInt32, cycleStart: UInt32, frames n: Int,
                            requests: TakeRequests, before: CyclePlanner) {
        guard !before.isFinished else { return }
        switch phase {
        case .missedStart:
            return
        case .waiting:
            // Not started yet: a split before the start frame cuts nothing.
            if requests.start != TakeRequests.none
                && FrameTime.distance(from: UInt32(truncatingIfNeeded: requests.start), to: frame) <= 0 {
                plan.consumedSplit = true
            }
            return
        case .recording, .paused, .finished:
            break
        }
        // Finished without starting (cancelled, or the sample rate changed first): nothing to cut.
        if before.phase == .waiting && !plan.has(CaptureEventRecord.startedKind) { return }
        if FrameTime.distance(from: start, to: frame) <= 0 {
            plan.consumedSplit = true
            return
        }
        let offset = FrameTime.distance(from: cycleStart, to: frame)
        if offset >= n { return }
        var position: Int64
        if offset < 0 {
            // Before this cycle: among the frames skipped just before it, or already planned.
            let firstUnplanned = before.phase == .waiting ? start : before.nextFrame
            let firstUnplannedPosition = before.phase == .waiting ? 0 : before.position
            let intoSkipped = Int64(max(0, FrameTime.distance(from: firstUnplanned, to: frame)))
            position = firstUnplannedPosition + min(intoSkipped, plan.skippedFrames)
        } else {
            position = self.position
            var index = 0
            while index < plan.spanCount {
                let span = plan.spans[index]
                if offset < span.offset + span.count {
                    position = span.position + Int64(max(0, offset - span.offset))
                    break
                }
                index += 1
            }
        }
        // The take ended in this cycle before the split: no frame follows it.
        if plan.finished && position >= self.position { return }
        plan.consumedSplit = true
        plan.splitPosition = position
        plan.emit(CaptureEventRecord.splitKind, frameTime: frame, position: position)
    }

    /// Plans the cycle's frames: every request but a split.
    @_noAllocation @_noLocks
    private mutating func planFrames(_ plan: inout CyclePlan, cycleStart: UInt32, frames n: Int, requests: TakeRequests) {
        guard !isFinished, n > 0 else { return }
        let gap = hasPlannedACycle ? max(0, FrameTime.distance(from: nextFrame, to: cycleStart)) : 0
        let firstCycle = !hasPlannedACycle
        hasPlannedACycle = true
        nextFrame = FrameTime.advance(cycleStart, by: n)
        var offset = 0

        if phase == .waiting {
            if requests.sampleRateChanged {
                finish(&plan, at: cycleStart, reportStop: false)
                return
            }
            if requests.start == TakeRequests.none {
                // Starts at the first cycle planned after arming, from its first frame.
                if firstCycle { start = cycleStart } else { start = FrameTime.advance(cycleStart, by: -gap) }
            } else {
                start = UInt32(truncatingIfNeeded: requests.start)
            }
            if requests.stop != TakeRequests.none
                && FrameTime.distance(from: start, to: UInt32(truncatingIfNeeded: requests.stop)) <= 0 {
                // Stopped before the start frame: the take is cancelled, and empty.
                phase = .finished
                endFrame = start
                plan.finished = true
                return
            }
            let untilStart = FrameTime.distance(from: cycleStart, to: start)
            if untilStart >= n { return }
            if untilStart < 0 {
                let previousEnd = FrameTime.advance(cycleStart, by: -gap)
                if firstCycle || FrameTime.distance(from: previousEnd, to: start) < 0 {
                    // The start frame had passed before the take could begin.
                    phase = .missedStart
                    plan.finished = true
                    return
                }
                // An xrun made JACK's clock jump over the start frame: those frames reached no
                // client. The take still starts at the start frame; they become silence.
                position = Int64(-untilStart)
                plan.skippedFrames = position
                plan.emit(CaptureEventRecord.framesSkippedKind, frameTime: start, position: 0, value: position)
            } else {
                offset = untilStart
            }
            plan.emit(CaptureEventRecord.startedKind, frameTime: start, position: 0)
            phase = .recording
            segmentStart = 0
        } else if phase == .recording && gap > 0 {
            // JACK's clock skipped frames (an xrun): keep the take aligned with it.
            plan.emit(CaptureEventRecord.framesSkippedKind, frameTime: FrameTime.advance(cycleStart, by: -gap),
                      position: position, value: Int64(gap))
            position += Int64(gap)
            plan.skippedFrames = Int64(gap)
        }

        // The sample rate changed: this cycle is at the new rate, and the take ends before it.
        if requests.sampleRateChanged {
            finish(&plan, at: cycleStart, reportStop: true)
            return
        }

        // Walk the cycle from the take's first frame in it, switching between recording and
        // paused at each requested frame, until its end or the take's.
        var cursor = offset
        var pauseRequest = requests.pause
        var resumeRequest = requests.resume
        while cursor < n {
            if phase == .recording {
                var end = n
                var finishing = false
                var finishFrame = UInt32(0)
                if requests.length != TakeRequests.none {
                    if position >= requests.length {
                        position = requests.length
                        end = cursor
                        finishing = true
                    } else if Int64(end - cursor) >= requests.length - position {
                        end = cursor + Int(requests.length - position)
                        finishing = true
                    }
                    finishFrame = FrameTime.advance(cycleStart, by: end)
                }
                if requests.stop != TakeRequests.none {
                    let untilStop = FrameTime.distance(from: cycleStart, to: UInt32(truncatingIfNeeded: requests.stop))
                    if untilStop < end {
                        finishing = true
                        if untilStop >= cursor {
                            end = untilStop
                            finishFrame = FrameTime.advance(cycleStart, by: end)
                        } else {
                            // The stop frame lies in a cycle already planned (a stop "now" can
                            // name a frame the server delivered a moment ago): the take ends
                            // there. The writer holds the newest block until the take ends, so
                            // it can cut it to this length.
                            end = cursor
                            let cut = min(Int64(cursor - untilStop), position - segmentStart)
                            position -= cut
                            finishFrame = FrameTime.advance(cycleStart, by: cursor - Int(cut))
                        }
                    }
                }
                var pausing = false
                if pauseRequest != TakeRequests.none {
                    let untilPause = FrameTime.distance(from: cycleStart, to: UInt32(truncatingIfNeeded: pauseRequest))
                    if untilPause < end && !(finishing && end == cursor) {
                        // A pause named in a cycle already planned takes effect at the first frame
                        // not yet planned; the event says where it landed.
                        end = max(cursor, untilPause)
                        finishing = false
                        pausing = true
                    }
                }
                plan.copy(offset: cursor, count: end - cursor, position: position)
                position += Int64(end - cursor)
                cursor = end
                if pausing {
                    pauseRequest = TakeRequests.none
                    plan.consumedPause = true
                    phase = .paused
                    plan.emit(CaptureEventRecord.pausedKind, frameTime: FrameTime.advance(cycleStart, by: end), position: position)
                    continue
                }
                if finishing {
                    phase = .finished
                    endFrame = finishFrame
                    plan.finished = true
                    plan.emit(CaptureEventRecord.stoppedKind, frameTime: endFrame, position: position)
                    return
                }
            } else {
                if requests.stop != TakeRequests.none
                    && FrameTime.distance(from: cycleStart, to: UInt32(truncatingIfNeeded: requests.stop)) < n {
                    // Stopped while paused: the take ends where it paused.
                    finish(&plan, at: FrameTime.advance(cycleStart, by: cursor), reportStop: true)
                    return
                }
                guard resumeRequest != TakeRequests.none else { break }
                let untilResume = FrameTime.distance(from: cycleStart, to: UInt32(truncatingIfNeeded: resumeRequest))
                guard untilResume < n else { break }
                resumeRequest = TakeRequests.none
                plan.consumedResume = true
                cursor = max(cursor, untilResume)
                phase = .recording
                segmentStart = position
                plan.emit(CaptureEventRecord.resumedKind, frameTime: FrameTime.advance(cycleStart, by: cursor), position: position)
            }
        }
    }

    /// Ends the take at `frame` with the frames it has.
    @_noAllocation @_noLocks
    private mutating func finish(_ plan: inout CyclePlan, at frame: UInt32, reportStop: Bool) {
        phase = .finished
        endFrame = frame
        plan.finished = true
        if reportStop { plan.emit(CaptureEventRecord.stoppedKind, frameTime: frame, position: position) }
    }
}
