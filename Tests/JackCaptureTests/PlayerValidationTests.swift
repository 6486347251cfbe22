import Foundation
import Testing
@testable import JackCapture

/// What a library caller can hand a `Player` that is no number or out of range: a typed error
/// or a documented clamp, never a trap and never NaN samples. No server is needed: each is
/// refused (or clamped) before JACK is asked.
@Suite("Player input validation")
struct PlayerValidationTests {
    /// A one-second mono float WAV in a fresh temporary folder.
    static func player() throws -> Player {
        let path = NSTemporaryDirectory() + "/player-validation-\(UUID().uuidString).wav"
        let writer = try SoundFile.create(path: path, format: try RecordingSettings(format: .float).resolveFormat(forPath: path),
                                          channels: 1, sampleRate: 48_000, overwrite: false)
        let samples = [Float](repeating: 0.25, count: 48_000)
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: 48_000) }
        try writer.close()
        return try Player(contentsOf: URL(fileURLWithPath: path))
    }

    @Test("a volume or pan that is NaN is ignored; beyond the range they are clamped")
    func gains() throws {
        let player = try Self.player()
        player.volume = 0.5
        player.volume = .nan
        #expect(player.volume == 0.5)
        player.volume = .infinity
        #expect(player.volume == 1)
        player.pan = -0.25
        player.pan = .nan
        #expect(player.pan == -0.25)
        player.pan = -.infinity
        #expect(player.pan == -1)
    }

    @Test("a currentTime that is NaN is ignored; beyond either end, that end", arguments: [
        (Double.nan, 12_000), (.infinity, 48_000), (-.infinity, 0), (1e300, 48_000), (-5, 0), (0.5, 24_000),
    ] as [(Double, Int64)])
    func positions(seconds: Double, frame: Int64) throws {
        let player = try Self.player()
        player.currentFrame = 12_000
        player.currentTime = seconds
        #expect(player.currentFrame == frame)
    }

    @Test("a start time that is not finite is a typed error, before JACK is asked", arguments: [Double.nan, .infinity, -.infinity])
    func startTimes(seconds: Double) throws {
        let player = try Self.player()
        do {
            try player.play(atTime: seconds)
            Issue.record("played at \(seconds)")
        } catch {
            guard case .capture(.badTime) = error else { Issue.record("\(error)"); return }
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("a buffer that is not a finite number of seconds above zero is a typed error, before JACK is asked",
          arguments: [Double.nan, .infinity, -.infinity, 0, -2])
    func buffers(seconds: Double) throws {
        let player = try Self.player()
        do {
            try player.prepareToPlay(server: "jcap-unit-no-such-server", bufferSeconds: seconds)
            Issue.record("prepared with \(seconds) s")
        } catch {
            guard case .capture(.badBufferLength) = error else { Issue.record("\(error)"); return }
        }
    }

    @Test("a rate that is NaN is 1; beyond the range, clamped")
    func rates() throws {
        let player = try Self.player()
        player.rate = .nan
        #expect(player.rate == 1)
        player.rate = 9
        #expect(player.rate == 2)
        player.rate = -.infinity
        #expect(player.rate == 0.5)
    }

    @Test("meters of a channel the player does not have read silence, not a trap")
    func meters() throws {
        let player = try Self.player()
        #expect(player.averagePower(forChannel: 7) == -160)
        #expect(player.peakPower(forChannel: -1) == -160)
    }
}
