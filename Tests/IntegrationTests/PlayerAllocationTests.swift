import AllocationProbe
import Foundation
import MallocInterposerSwift
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// The player's process callback allocates nothing while it plays, seeks, changes volume and
/// pan, pauses and resumes (malloc-interposer's hook counts allocations on the process thread;
/// `AllocationTests.testControlClientThatAllocatesIsCaught` proves it sees that thread).
final class PlayerAllocationTests: AllocationTestCase {
    /// At a rate (the reader resamples through libsamplerate): playing, a seek, a rate change
    /// (a new converter, made on the reader's thread) and a loop's wrap allocate nothing on the
    /// process thread either.
    func testPlayingAtARateAllocatesNothingOnTheProcessThread() throws {
        let file = path("noalloc-rate.wav")
        let writer = try SoundFile.create(path: file, format: try RecordingSettings(format: .float).resolveFormat(forPath: file),
                                          channels: 2, sampleRate: server.sampleRate, overwrite: false)
        let frames = 5 * 48_000
        let samples = (0..<(2 * frames)).map { TestSignal.sample(frameTime: UInt32($0 / 2), channel: $0 % 2) }
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
        try writer.close()

        let player = try Player(contentsOf: URL(fileURLWithPath: file))
        player.enableRate = true
        player.rate = 1.5
        try player.prepareToPlay(clientName: "noalloc-rate", server: server.name, outputs: .none)
        defer { player.close() }
        player.numberOfLoops = -1
        usleep(100_000)
        guard let thread = player.processThread else { return XCTFail("no process thread") }
        allocation_probe_watch(thread)
        try player.play()
        usleep(400_000)
        player.currentFrame = 100_000          // a seek at the rate
        usleep(300_000)
        player.rate = 0.75                     // a new ratio while playing
        usleep(300_000)
        player.rate = 2
        player.currentTime = 4.8               // near the end: the loop comes round at rate 2
        usleep(600_000)
        allocation_probe_unwatch()
        let counted = allocation_probe_count()
        XCTAssertTrue(player.isPlaying)
        // A loaded host starves the player's reader now and then: the underruns are counted and
        // played as silence on the same process thread, whose allocations are what is checked.
        if player.underrunFrames > 0 { print("note: \(player.underrunFrames) underrun frames while playing at a rate") }
        XCTAssertLessThan(player.currentFrame, 96_000, "looped round to the start (0.1 s to the end, then 1 s of file a second)")
        XCTAssertEqual(counted, 0, "allocations on the process thread while playing at a rate")
    }

    func testPlayingSeekingAndChangingVolumeAllocatesNothingOnTheProcessThread() throws {
        let file = path("noalloc.wav")
        let writer = try SoundFile.create(path: file, format: try RecordingSettings(format: .float).resolveFormat(forPath: file),
                                          channels: 2, sampleRate: server.sampleRate, overwrite: false)
        let frames = 5 * 48_000
        let samples = (0..<(2 * frames)).map { TestSignal.sample(frameTime: UInt32($0 / 2), channel: $0 % 2) }
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
        try writer.close()

        let player = try Player(contentsOf: URL(fileURLWithPath: file))
        try player.prepareToPlay(clientName: "noalloc-play", server: server.name, outputs: .none)
        defer { player.close() }
        player.numberOfLoops = -1
        player.isMeteringEnabled = true        // the callback measures every port it plays
        usleep(100_000)
        guard let thread = player.processThread else { return XCTFail("no process thread") }
        allocation_probe_watch(thread)
        try player.play()
        usleep(400_000)
        player.currentFrame = 100_000          // a seek while playing
        usleep(300_000)
        player.volume = 0.5
        player.pan = -0.5
        usleep(300_000)
        player.updateMeters()
        XCTAssertGreaterThan(player.peakPower(forChannel: 0), -160, "the meters measured")
        player.pause()
        usleep(200_000)
        player.currentTime = 4.9               // near the end: the loop comes round while playing
        try player.play()
        usleep(600_000)
        allocation_probe_unwatch()
        let counted = allocation_probe_count()
        XCTAssertTrue(player.isPlaying)
        XCTAssertGreaterThan(player.currentFrame, 0)
        XCTAssertLessThan(player.currentFrame, 48_000, "looped round to the start")
        XCTAssertEqual(counted, 0, "allocations on the process thread while playing")
    }

    /// A stereo monitor mix (`PlaybackMix`): a mono and a stereo file summed onto two ports,
    /// with solo and mute changing the gains while playing, allocates nothing either.
    func testPlayingAMixWithSoloAndMuteAllocatesNothingOnTheProcessThread() throws {
        var urls: [URL] = []
        for channels in [1, 2] {
            let file = path("noalloc-mix-\(channels).wav")
            let writer = try SoundFile.create(path: file, format: try RecordingSettings(format: .float).resolveFormat(forPath: file),
                                              channels: channels, sampleRate: server.sampleRate, overwrite: false)
            let frames = 5 * 48_000
            let samples = (0..<(channels * frames)).map { TestSignal.sample(frameTime: UInt32($0 / channels), channel: $0 % channels) }
            try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
            try writer.close()
            urls.append(URL(fileURLWithPath: file))
        }
        let player = try Player(contentsOf: urls)
        try player.prepareToPlay(clientName: "noalloc-mix", server: server.name, outputs: .none,
                                 mix: PlaybackMix(pans: [-0.5, 0.25]))
        defer { player.close() }
        player.numberOfLoops = -1
        player.isMeteringEnabled = true
        usleep(100_000)
        guard let thread = player.processThread else { return XCTFail("no process thread") }
        allocation_probe_watch(thread)
        try player.play()
        usleep(400_000)
        player.setSoloed(true, file: 1)
        usleep(300_000)
        player.setMuted(true, file: 1)
        player.volume = 0.5
        usleep(300_000)
        player.currentFrame = 100_000
        usleep(400_000)
        allocation_probe_unwatch()
        let counted = allocation_probe_count()
        XCTAssertTrue(player.isPlaying)
        XCTAssertEqual(player.portNames.count, 2)
        XCTAssertEqual(counted, 0, "allocations on the process thread while playing a mix")
    }

    /// A start at a moment of JACK's clock: the callback reads each cycle's times
    /// (`CycleTimes.current`, jack_get_cycle_times) until the moment's cycle, and allocates
    /// nothing doing it.
    func testAClockStartAllocatesNothingOnTheProcessThread() throws {
        let file = try writeFloatFile("noalloc-clock.wav", channels: 2, frames: 2 * 48_000) { frame, channel in
            Float((frame + channel) % 100) / 1_000
        }
        let player = try Player(contentsOf: URL(fileURLWithPath: file))
        try player.prepareToPlay(clientName: "noalloc-clock", server: server.name, outputs: .none)
        defer { player.close() }
        usleep(100_000)
        guard let thread = player.processThread else { return XCTFail("no process thread") }
        allocation_probe_watch(thread)
        try player.play(atTime: player.deviceCurrentTime + 0.3)
        usleep(700_000)
        allocation_probe_unwatch()
        let counted = allocation_probe_count()
        XCTAssertNotNil(player.startedFrame, "started on the clock")
        XCTAssertEqual(counted, 0, "allocations on the process thread while waiting for and starting on the clock")
    }
}
