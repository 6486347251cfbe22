import JackCapture
@testable import jcap

/// Fixed meter values for the console tests.
enum MeterSnapshots {
    /// A spread of levels: silence, quiet, nominal, hot, full scale, clipped.
    static func reading(_ index: Int) -> MeterReading {
        let peaks: [Float] = [-160, -45.5, -20, -12.3, -6, -1.2, 0, 3.1]
        let peak = peaks[index % peaks.count]
        return MeterReading(averagePower: peak <= -160 ? -160 : peak - 6, peakPower: peak,
                            peakHold: peak <= -160 ? -160 : min(peak + 2, 3.1), highestPeak: peak,
                            clipCount: peak >= 0 ? Int64(index + 1) : 0)
    }

    static func snapshot(channels: Int) -> MeterSnapshot {
        MeterSnapshot(state: .recording, sampleRate: 48_000, elapsedFrames: 3_984_000, remainingFrames: 1_776_000,
                      bufferFill: 0.03, xruns: 0, lostFrames: 0,
                      channels: (0..<channels).map { MeterSnapshot.Channel(name: "capture_\($0 + 1)", reading: reading($0)) })
    }

    /// Two seconds recorded, one left, paused.
    static func paused() -> MeterSnapshot {
        MeterSnapshot(state: .paused, sampleRate: 48_000, elapsedFrames: 96_000, remainingFrames: 48_000,
                      bufferFill: 0, xruns: 0, lostFrames: 0,
                      channels: [MeterSnapshot.Channel(name: "capture_1", reading: .silent)])
    }
}
