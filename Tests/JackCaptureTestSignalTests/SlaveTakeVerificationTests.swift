import Foundation
@testable import JackCapture
import JackCaptureTestSignal
import Testing

/// A NetJACK2 slave's take checked with the master's xruns (`SlaveTakeVerification`), on files
/// made by hand as `TakeVerificationTests` makes them: a master's step, a period the master's
/// packets did not fill, and one that mixes a step with silence, each allowed only for an xrun
/// the master reported, and nothing allowed without one.
@Suite("A slave's take against the master's xruns")
struct SlaveTakeVerificationTests {
    static let period = 256
    /// The first period boundary of the slave's clock after take position 2,048: the take's first
    /// frame time is 128 frames into a period.
    static let boundary = 2_176

    /// The signal of `TakeVerificationTests.rightSamples`, `frames` later on the master's clock
    /// from take position `at` on.
    static func stepped(by frames: Int, at position: Int) -> [[Float]] {
        let right = TakeVerificationTests.rightSamples(), later = TakeVerificationTests.rightSamples(shifts: [frames, frames])
        return right.indices.map { $0 < position ? right[$0] : later[$0] }
    }

    @Test("the slave's periods begin where the test's boundary says")
    func boundary() {
        #expect(Int(FrameTime.advance(TakeVerificationTests.start, by: Self.boundary) % UInt32(Self.period)) == 0)
    }

    @Test("a step of a period at a boundary takes one master xrun; without one it is misplaced")
    func step() throws {
        let path = try TakeVerificationTests.write(Self.stepped(by: Self.period, at: Self.boundary))
        defer { unlink(path) }
        let account = TakeVerificationTests.account(path)
        let allowed = SlaveTakeVerification.verify(account, masterXruns: 1, period: Self.period)
        #expect(allowed.verification.isAccountedFor, "\(allowed.verification)")
        #expect(allowed.steps == [.init(position: Int64(Self.boundary), frames: Int64(Self.period))])
        let refused = SlaveTakeVerification.verify(account, masterXruns: 0, period: Self.period)
        #expect(!refused.verification.isAccountedFor && refused.steps.isEmpty)
    }

    @Test("silence from a packet's place to a period's end is that period, for one master xrun")
    func unfilledPeriod() throws {
        var samples = TakeVerificationTests.rightSamples()
        // The packets after the eleventh of four frames never came: silence on every channel.
        for frame in (Self.boundary + 44)..<(Self.boundary + Self.period) { samples[frame] = [0, 0] }
        let path = try TakeVerificationTests.write(samples)
        defer { unlink(path) }
        let account = TakeVerificationTests.account(path)
        let allowed = SlaveTakeVerification.verify(account, masterXruns: 1, period: Self.period)
        #expect(allowed.verification.isAccountedFor, "\(allowed.verification)")
        #expect(allowed.steps == [.init(position: Int64(Self.boundary), frames: 0)])
        let refused = SlaveTakeVerification.verify(account, masterXruns: 0, period: Self.period)
        #expect(refused.verification.silentMisplacedSamples == Int64(2 * (Self.period - 44)), "\(refused.verification)")
        #expect(!refused.verification.isAccountedFor)
    }

    @Test("a step whose period is part silence: that period excused, the step found after it")
    func stepIntoAnUnfilledPeriod() throws {
        // As on a busy host (stop 50: a step at 73,984, then silence from 74,028): a period on
        // from the boundary, and silence in that period from frame 44.
        var samples = Self.stepped(by: Self.period, at: Self.boundary)
        for frame in (Self.boundary + 44)..<(Self.boundary + Self.period) { samples[frame] = [0, 0] }
        let path = try TakeVerificationTests.write(samples)
        defer { unlink(path) }
        let account = TakeVerificationTests.account(path)
        let allowed = SlaveTakeVerification.verify(account, masterXruns: 2, period: Self.period)
        #expect(allowed.verification.isAccountedFor, "\(allowed.verification)")
        #expect(allowed.steps == [.init(position: Int64(Self.boundary), frames: 0),
                                  .init(position: Int64(Self.boundary + Self.period), frames: Int64(Self.period))])
        // One xrun is not enough for both.
        #expect(!SlaveTakeVerification.verify(account, masterXruns: 1, period: Self.period).verification.isAccountedFor)
    }

    @Test("a step that is no whole number of periods is never allowed")
    func partPeriodStep() throws {
        let path = try TakeVerificationTests.write(Self.stepped(by: 100, at: Self.boundary))
        defer { unlink(path) }
        let result = SlaveTakeVerification.verify(TakeVerificationTests.account(path), masterXruns: 5, period: Self.period)
        #expect(!result.verification.isAccountedFor && result.steps.isEmpty, "\(result.verification)")
    }

    @Test("distances between frame times wrap at the signal's modulus")
    func distances() {
        let modulus = TestSignal.timeModulus
        #expect(SlaveTakeVerification.distance(from: 10, to: 266) == 256)
        #expect(SlaveTakeVerification.distance(from: 266, to: 10) == -256)
        #expect(SlaveTakeVerification.distance(from: modulus - 100, to: 156) == 256)
    }
}
