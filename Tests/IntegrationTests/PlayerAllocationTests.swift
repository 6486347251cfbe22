import AllocationProbe
import Foundation
import MallocInterposerSwift
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// The player's process callback allocates nothing while it plays, seeks, changes volume and
/// pan, pauses and resumes (malloc-interposer's hook counts allocations on the process thread;
/// `AllocationTests.testControlClientThatAllocatesIsCaught` proves it sees that thread).
final class PlayerAllocationTests: JackTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try XCTSkipIf(Executables.builtWithThreadSanitizer,
                      "ThreadSanitizer owns malloc: the allocation hook sees nothing (tools/test runs these)")
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.setAllocationHook(allocation_probe_hook)
        MallocInterposerSwift.hook()
    }

    override func tearDownWithError() throws {
        allocation_probe_unwatch()
        MallocInterposerSwift.unhook()
        MallocInterposerSwift.setAllocationHook(nil)
        try super.tearDownWithError()
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
}
