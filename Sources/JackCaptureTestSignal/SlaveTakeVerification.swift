import JackCapture

/// A take recorded on a NetJACK2 slave without the master's timecode, checked against jcap's
/// report (`TakeVerification`) and the master's own xruns: what a slave can and cannot see
/// (docs/netjack.md). A master that misses a deadline jumps its clock; the jump crosses the link
/// and the slave's clock does not, so only the master's server can tell. And a master late with a
/// cycle has sent part of it: the slave's driver clears its capture ports as a cycle's first
/// packet comes and renders the packets that came, so a period of the file can hold parts of two
/// of the master's periods, or silence where packets never came (jack2 1.9.21's
/// `NetFloatAudioBuffer::RenderFromNetwork`), with nothing said to any client.
public enum SlaveTakeVerification {
    /// What one of the master's xruns accounts for in the file: a step against the master's clock
    /// (from take position `position` on, the file is `frames` later on it), or, `frames` 0, the
    /// slave's period at `position` not filled from one of the master's periods.
    public struct MasterStep: Equatable, Sendable, CustomStringConvertible {
        public let position: Int64
        public let frames: Int64

        public init(position: Int64, frames: Int64) {
            self.position = position
            self.frames = frames
        }

        public var description: String { frames == 0 ? "a period not one of the master's at \(position)" : "\(frames) frames at \(position)" }
    }

    /// `account` verified with up to `masterXruns` of the master's xruns accounted for, found one
    /// at a time at the first sample out of place: a step to the signal's new offset, a whole
    /// number of `period`s; or, where that sample is silence or lies in the same period as the
    /// step found last (the step left other channels of it out of place), that period excused as
    /// one not filled from one master period, the step taken back. Before and after each, every
    /// sample must be the signal in place or inside a span jcap reported; with no master xrun,
    /// nothing is allowed beyond jcap's report.
    public static func verify(_ account: TakeAccount, masterXruns: Int, period: Int)
        -> (verification: TakeVerification, steps: [MasterStep]) {
        var account = account
        var steps: [MasterStep] = []
        while true {
            let verification = TakeVerification.verify(account)
            guard !verification.isAccountedFor, steps.count < masterXruns, verification.misplacedSamples > 0,
                  let first = verification.firstMisplaced.first else {
                return (verification, steps)
            }
            // The slave's periods start on its frame times (a take's positions are its frames,
            // lost ones padded), whatever steps the master's clock took.
            let periodStart = first.position
                - Int64(FrameTime.advance(account.startFrame, by: Int(first.position)) % UInt32(period))
            let stepInPeriod = steps.last.map { $0.frames != 0 && $0.position >= periodStart } ?? false
            if first.isSilence || stepInPeriod {
                guard !account.uncertainSpans.contains(where: { $0.position == periodStart }) else {
                    return (verification, steps)
                }
                if stepInPeriod {
                    steps.removeLast()
                    account.pauses.removeLast()
                }
                steps.append(MasterStep(position: periodStart, frames: 0))
                account.uncertainSpans.append(LostSpan(position: periodStart, frames: Int64(period)))
                continue
            }
            guard let found = first.found else { return (verification, steps) }
            let step = distance(from: first.expected, to: found)
            guard step != 0, step % period == 0 else { return (verification, steps) }
            steps.append(MasterStep(position: first.position, frames: Int64(step)))
            account.pauses.append(TakeAccount.Pause(position: first.position, skippedFrames: Int64(step)))
        }
    }

    /// Frames from `earlier` to `later`, both test-signal frame times (modulo 2^22), as the signed
    /// distance nearest zero.
    public static func distance(from earlier: Int, to later: Int) -> Int {
        let modulus = TestSignal.timeModulus
        let forward = ((later - earlier) % modulus + modulus) % modulus
        return forward > modulus / 2 ? forward - modulus : forward
    }
}
