import AllocationProbe
import Atomics
import CJack
import Foundation
import MallocInterposerSwift
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// The process callback allocates nothing: every allocation on the JACK process thread is counted
/// by malloc-interposer's hook while 8 channels are recorded. A control client that allocates in
/// its callback proves the count sees that thread.
final class AllocationTests: AllocationTestCase {
    func testControlClientThatAllocatesIsCaught() throws {
        let control = try JackClient(name: "allocating", server: server.name)
        control.setProcessCallback({ _, _ in
            allocationSink(malloc(64))
            return 0
        }, argument: UnsafeMutableRawPointer(bitPattern: 1)!)
        try control.activate()
        usleep(200_000)
        allocation_probe_watch(control.processThread)
        usleep(500_000)
        allocation_probe_unwatch()
        control.deactivate()
        control.close()
        // One allocation per cycle: half a second is 23 cycles at 1024 frames, 93 at 256.
        let cycles = Int64(server.sampleRate / 2 / server.period)
        XCTAssertGreaterThanOrEqual(allocation_probe_count(), cycles - 2, "the probe counts allocations on a JACK process thread")
    }

    func testRecordingEightChannelsAllocatesNothingOnTheProcessThread() throws {
        try recordEightChannelsCountingAllocations(metering: false)
    }

    func testRecordingEightChannelsWithMeteringAllocatesNothingOnTheProcessThread() throws {
        try recordEightChannelsCountingAllocations(metering: true)
    }

    func testPausingAndResumingAllocatesNothingOnTheProcessThread() throws {
        try recordEightChannelsCountingAllocations(metering: true, pausing: true)
    }

    func testWaitingWithAPreRollAndStartingOnTheCueAllocatesNothingOnTheProcessThread() throws {
        var configuration = CaptureConfiguration()
        configuration.serverName = server.name
        configuration.clientName = "noalloc-cue"
        configuration.sources = .ports((1...8).map { "sig:out_\($0)" })
        configuration.outputPath = path("cue.wav")
        configuration.settings.overwritesExistingFile = true
        configuration.preRoll = .frames(24_000)
        // An xrun while watched is welcome: its path must not allocate either. The take is then
        // checked against what it reported.
        let (counted, cue, report) = try { () -> (Int64, UInt32, TakeReport) in
            let session = try OneTake(configuration: configuration)
            session.isMeteringEnabled = true
            session.client.watchTransport()
            try session.take.startOnCue()
            usleep(100_000)
            allocation_probe_watch(session.jack.processThread)
            usleep(1_000_000)  // waiting: cycles held for the pre-roll, the oldest released
            let cue = session.take.cue()
            try Self.waitFor("recording") { session.status.position > 0 }
            usleep(300_000)
            allocation_probe_unwatch()
            let counted = allocation_probe_count()
            session.stop()
            return (counted, cue, session.finish())
        }()
        XCTAssertEqual(counted, 0, "\(counted) allocations (\(allocation_probe_bytes()) bytes) on the process thread")
        let account = try account(of: report)
        XCTAssertEqual(report.outcome, outcome(reporting: account))
        XCTAssertEqual(report.startFrame, FrameTime.advance(cue, by: -24_000), "the take starts a pre-roll before the cue")
        XCTAssertEqual(report.triggerPosition, 24_000)
        assertAccountedFor(account)
    }

    func testWaitingForSoundWithAPreRollAllocatesNothingOnTheProcessThread() throws {
        var configuration = CaptureConfiguration()
        configuration.serverName = server.name
        configuration.clientName = "noalloc-trigger"
        configuration.sources = .ports((1...8).map { "sig:out_\($0)" })
        configuration.outputPath = path("trigger.wav")
        configuration.settings.overwritesExistingFile = true
        configuration.preRoll = .frames(24_000)
        configuration.triggerLevel = -3  // the test signal peaks at -12 dBFS: never reached
        configuration.triggerStop = .frames(4_800)
        let session = try OneTake(configuration: configuration)
        try session.start()
        usleep(100_000)
        allocation_probe_watch(session.jack.processThread)
        usleep(1_000_000)
        allocation_probe_unwatch()
        let counted = allocation_probe_count()
        XCTAssertTrue(session.take.isWaitingForTrigger)
        session.stop()
        let report = session.finish()
        XCTAssertEqual(counted, 0, "\(counted) allocations (\(allocation_probe_bytes()) bytes) on the process thread")
        XCTAssertEqual(report.outcome, .cancelled, "no sound reached the level: nothing recorded")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("trigger.wav")))
    }

    /// Clock-aligned splits: deciding each boundary's frame, placing it and handing it to the
    /// writer happen on the process thread too.
    func testSplittingOnTheClockAllocatesNothingOnTheProcessThread() throws {
        try recordEightChannelsCountingAllocations(metering: true, split: true)
    }

    /// `jcap timecode`'s writer: each cycle's timecode written without an allocation. A probe
    /// client reading its port proves the callback ran while watched, and wrote the right frames.
    func testTheTimecodeWriterAllocatesNothingOnTheProcessThread() throws {
        let writer = try TimecodeWriter(clientName: "noalloc-timecode", server: server.name)
        defer { writer.close() }
        let probe = try JackClient(name: "timecode-probe", server: server.name)
        let input = try probe.registerAudioInput(named: "in")
        let state = UnsafeMutablePointer<TimecodeProbe>.allocate(capacity: 1)
        state.initialize(to: TimecodeProbe(client: probe.handle, port: input))
        defer {
            probe.deactivate()
            probe.close()
            state.pointee.destroy()
            state.deinitialize(count: 1)
            state.deallocate()
        }
        probe.setProcessCallback({ frames, argument in
            argument?.assumingMemoryBound(to: TimecodeProbe.self).pointee.read(frames: frames)
            return 0
        }, argument: UnsafeMutableRawPointer(state))
        try probe.activate()
        try probe.connect(writer.portName, to: "timecode-probe:in")
        try Self.waitFor("the probe to read timecode") { state.pointee.decoded.load(ordering: .relaxed) > 2 }
        let xruns = Self.serverXruns.load(ordering: .relaxed)
        let before = (state.pointee.decoded.load(ordering: .relaxed), state.pointee.wrong.load(ordering: .relaxed))
        allocation_probe_watch(writer.processThread)
        usleep(1_000_000)
        allocation_probe_unwatch()
        let counted = allocation_probe_count()
        let decoded = state.pointee.decoded.load(ordering: .relaxed) - before.0
        let wrong = state.pointee.wrong.load(ordering: .relaxed) - before.1
        XCTAssertEqual(counted, 0, "\(counted) allocations (\(allocation_probe_bytes()) bytes) on the process thread")
        XCTAssertGreaterThan(decoded, 30, "the writer ran while watched (a second of periods)")
        // An xrun may leave the probe a period the writer did not write in time.
        if Self.serverXruns.load(ordering: .relaxed) == xruns {
            XCTAssertEqual(wrong, 0, "every period the probe read carried its own frame time")
        }
    }

    private func recordEightChannelsCountingAllocations(metering: Bool, pausing: Bool = false, split: Bool = false) throws {
        var configuration = CaptureConfiguration()
        configuration.serverName = server.name
        configuration.clientName = "noalloc"
        configuration.sources = .ports((1...8).map { "sig:out_\($0)" })
        configuration.outputPath = path("noalloc.wav")
        configuration.settings.overwritesExistingFile = true
        if split { configuration.split = try SplitInterval(seconds: 1) }
        // An xrun while watched is welcome: its path must not allocate either. The take is then
        // checked against what it reported.
        let (counted, cyclesWatched, report) = try { () -> (Int64, Int64, TakeReport) in
            let session = try OneTake(configuration: configuration)
            session.isMeteringEnabled = metering
            try session.start()
            try Self.waitFor("recording") { session.status.position > 0 }
            let cycles = session.engine.state.pointee.cycles.load(ordering: .relaxed)
            allocation_probe_watch(session.jack.processThread)
            for step in 0..<40 {  // the meters are read meanwhile, as the console does
                usleep(50_000)
                if metering { session.updateMeters() }
                if pausing && step % 10 == 5 { session.pause() }
                if pausing && step % 10 == 8 { session.resume() }
                _ = session.takeEvents()
            }
            allocation_probe_unwatch()
            if metering {
                XCTAssertGreaterThan(session.peakPower(forChannel: 0), -160, "the meters measured")
            }
            let counted = allocation_probe_count()
            let cyclesWatched = session.engine.state.pointee.cycles.load(ordering: .relaxed) - cycles
            session.stop()
            return (counted, cyclesWatched, session.finish())
        }()
        XCTAssertEqual(counted, 0, "\(counted) allocations (\(allocation_probe_bytes()) bytes) on the process thread")
        XCTAssertGreaterThan(cyclesWatched, 60, "the callback ran while watched")
        let account = try account(of: report)
        assertAccountedFor(account)
        XCTAssertEqual(report.outcome, outcome(reporting: account), "lost \(report.lostSpans), overrun \(report.overrunFrames), skipped \(report.skippedFrames), xruns \(report.xruns)")
        if split {
            // Two seconds watched: at least one boundary fell inside them.
            XCTAssertGreaterThanOrEqual(report.segments.count, 2, "\(report.segments.map(\.files))")
            // Each file begins at the take position where the last one ended (every sample checked above).
            var next: Int64 = 0
            for file in account.files {
                XCTAssertEqual(file.firstPosition, next, "no gap between files")
                next += try SoundFile.open(readingFrom: file.path).frames
            }
            return
        }
        if pausing {
            XCTAssertEqual(report.pauses.count, 4, "\(report.events)")
            XCTAssertEqual(account.pauses.count, 4, "five runs of frames, each checked from its own resume frame")
        } else {
            XCTAssertTrue(account.pauses.isEmpty)
        }
    }
}

/// Keeps the control's allocation observable (and leaks nothing).
@inline(never)
func allocationSink(_ pointer: UnsafeMutableRawPointer?) {
    free(pointer)
}

/// A client's input reading a `TimecodeWriter`'s port in the same cycle: counts the periods that
/// decode to the cycle's own frame time, and the others.
struct TimecodeProbe {
    let client: OpaquePointer
    let port: OpaquePointer
    let decoded = UnsafeAtomic<Int>.create(0)
    let wrong = UnsafeAtomic<Int>.create(0)

    func read(frames: jack_nframes_t) {
        guard let buffer = jack_port_get_buffer(port, frames) else { return }
        let time = MasterTimecode.firstFrameTime(of: buffer.assumingMemoryBound(to: Float.self), count: Int(frames))
        (time == jack_last_frame_time(client) ? decoded : wrong).wrappingIncrement(ordering: .relaxed)
    }

    func destroy() {
        decoded.destroy()
        wrong.destroy()
    }
}
