import Testing
@testable import JackCapture

/// `PlaybackMix`'s gains: pans by `PanLaw`, solo and mute.
@Suite("Playback mix gains")
struct PlaybackMixGainTests {
    @Test("mono files pan with equal power, two-channel files keep left and right at their balance")
    func pans() {
        let mix = PlaybackMix(pans: [-1, 0, 0.5, 7])
        #expect(mix.gain(file: 0, channels: 1, output: 0, volume: 1) == 1)
        #expect(abs(mix.gain(file: 0, channels: 1, output: 1, volume: 1)) < 1e-7)
        #expect(abs(mix.gain(file: 1, channels: 1, output: 0, volume: 1) - 0.70710677) < 1e-6)
        #expect(mix.gain(file: 2, channels: 2, output: 0, volume: 1) == 0.5)
        #expect(mix.gain(file: 2, channels: 2, output: 1, volume: 1) == 1)
        #expect(mix.pans[3] == 1, "clamped")
        #expect(mix.gain(file: 2, channels: 2, output: 1, volume: 0.5) == 0.5, "the player's volume applies")
    }

    @Test("a muted file is silent; while any is soloed only soloed, unmuted files sound")
    func soloAndMute() {
        var mix = PlaybackMix(pans: [0, 0, 0])
        mix.muted = [0]
        #expect(!mix.isAudible(0) && mix.isAudible(1) && mix.isAudible(2))
        #expect(mix.gain(file: 0, channels: 1, output: 0, volume: 1) == 0)
        mix.soloed = [1, 0]
        #expect(!mix.isAudible(0) && mix.isAudible(1) && !mix.isAudible(2))
        #expect(mix.gain(file: 2, channels: 2, output: 1, volume: 1) == 0)
        mix.soloed = []
        mix.muted = []
        #expect((0..<3).allSatisfy(mix.isAudible))
    }
}
