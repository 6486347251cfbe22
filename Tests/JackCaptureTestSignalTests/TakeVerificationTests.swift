import Foundation
@testable import JackCapture
import JackCaptureTestSignal
import Testing

/// The report-based verifier on files made by hand: it passes a right file, and fails each kind of
/// fault it exists to find (a shift, a silence nobody reported, a lost span that holds signal).
@Suite("Take verification against jcap's report")
struct TakeVerificationTests {
    static let start: UInt32 = 4_294_960_000 // wraps JACK's 32-bit clock inside the file
    static let signalChannels = [3, 5]
    static let frames = 10_000

    /// The signal as a right take holds it: file frame p of channel c is signal channel
    /// `signalChannels[c]` at JACK frame start + p.
    static func rightSamples(shifts: [Int] = [0, 0]) -> [[Float]] {
        (0..<frames).map { frame in
            signalChannels.indices.map {
                TestSignal.sample(frameTime: FrameTime.advance(start, by: frame + shifts[$0]), channel: signalChannels[$0])
            }
        }
    }

    static func write(_ frames: [[Float]]) throws -> String {
        let path = NSTemporaryDirectory() + "/jcap-verify-\(UUID().uuidString).wav"
        let writer = try SoundFile.create(path: path, format: try RecordingSettings(format: .float).resolveFormat(forPath: path),
                                          channels: signalChannels.count, sampleRate: 48_000, overwrite: false)
        let interleaved = frames.flatMap { $0 }
        try interleaved.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames.count) }
        try writer.close()
        return path
    }

    static func account(_ path: String, lost: [LostSpan] = [], late: [LostSpan] = [], uncertain: [LostSpan] = [],
                        pauses: [TakeAccount.Pause] = [], shifts: [Int]? = nil, frames: Int64? = Int64(frames)) -> TakeAccount {
        TakeAccount(startFrame: start, files: [.init(path: path, signalChannels: signalChannels, shifts: shifts, frames: frames)],
                    pauses: pauses, lostSpans: lost, lateCopySpans: late, uncertainSpans: uncertain)
    }

    @Test("a right file with nothing reported is accounted for, every sample checked")
    func right() throws {
        let path = try Self.write(Self.rightSamples())
        defer { unlink(path) }
        let result = TakeVerification.verify(Self.account(path))
        #expect(result.isAccountedFor, "\(result)")
        #expect(result.checkedSamples == Int64(Self.frames * 2))
        #expect(result.misplacedSamples == 0 && result.falseSpans.isEmpty)
    }

    @Test("a shift nobody reported: every sample after it is misplaced, with the frame times it held")
    func unreportedShift() throws {
        var samples = Self.rightSamples()
        // From file frame 6,000 on, the file runs one frame late (a repeated frame).
        for frame in stride(from: Self.frames - 1, to: 6_000, by: -1) { samples[frame] = samples[frame - 1] }
        let path = try Self.write(samples)
        defer { unlink(path) }
        let result = TakeVerification.verify(Self.account(path))
        #expect(!result.isAccountedFor)
        #expect(result.misplacedSamples == Int64((Self.frames - 6_001) * 2), "\(result)")
        let first = try #require(result.firstMisplaced.first)
        #expect(first.frame == 6_001 && first.channel == 0)
        #expect(first.expected == Int(FrameTime.advance(Self.start, by: 6_001)) % TestSignal.timeModulus)
        #expect(first.found == Int(FrameTime.advance(Self.start, by: 6_000)) % TestSignal.timeModulus)
        #expect(result.description.contains("unreported misplaced"), "\(result)")
    }

    @Test("a sample that is no signal at all is misplaced and not counted as silence")
    func noSignal() throws {
        var samples = Self.rightSamples()
        // 0.7 is no sample of the signal: 0.7 × 2^23 is no whole number.
        for frame in 5_000..<5_004 { samples[frame] = [0.7, 0.7] }
        let path = try Self.write(samples)
        defer { unlink(path) }
        let result = TakeVerification.verify(Self.account(path))
        #expect(result.misplacedSamples == 8 && result.silentMisplacedSamples == 0, "\(result)")
        let first = try #require(result.firstMisplaced.first)
        #expect(first.found == nil && !first.isSilence && first.frame == 5_000)
        #expect(result.description.contains("found no signal"), "\(result)")
    }

    @Test("a silence nobody reported is misplaced; the same silence reported lost is accounted for")
    func unreportedSilence() throws {
        var samples = Self.rightSamples()
        for frame in 2_048..<2_304 { samples[frame] = [0, 0] }
        let path = try Self.write(samples)
        defer { unlink(path) }
        let unreported = TakeVerification.verify(Self.account(path))
        #expect(unreported.misplacedSamples == 512, "\(unreported)")
        #expect(unreported.firstMisplaced.first?.found == nil)
        // Told apart from a sample of no signal: counted as silence, and said so.
        #expect(unreported.silentMisplacedSamples == 512)
        #expect(unreported.firstMisplaced.first?.isSilence == true)
        #expect(unreported.description.contains("512 unreported misplaced (512 of them silence)"), "\(unreported)")
        #expect(unreported.description.contains("found silence"), "\(unreported)")
        let reported = TakeVerification.verify(Self.account(path, lost: [LostSpan(position: 2_048, frames: 256)]))
        #expect(reported.isAccountedFor, "\(reported)")
        #expect(reported.silentReportedSamples == 512)
        // A report that covers only part of the silence leaves the rest misplaced.
        let short = TakeVerification.verify(Self.account(path, lost: [LostSpan(position: 2_048, frames: 128)]))
        #expect(short.misplacedSamples == 256, "\(short)")
    }

    @Test("a lost span reported where the file holds the signal is false")
    func falseSpan() throws {
        let path = try Self.write(Self.rightSamples())
        defer { unlink(path) }
        let result = TakeVerification.verify(Self.account(path, lost: [LostSpan(position: 3_000, frames: 100)]))
        #expect(!result.isAccountedFor)
        #expect(result.misplacedSamples == 0)
        #expect(result.falseSpans.count == 1, "\(result)")
        #expect(result.falseSpans.first?.span == LostSpan(position: 3_000, frames: 100))
        #expect(result.falseSpans.first?.firstSoundingPosition == 3_000)
        #expect(result.falseSpans.first?.soundingSamples == 200)
        #expect(result.description.contains("falsely reported"), "\(result)")
    }

    @Test("anything inside a reported late-copy or uncertain period is excused; outside it, not")
    func excusedPeriods() throws {
        var samples = Self.rightSamples()
        // A period holding the next period's samples, as a late copy can.
        for frame in 4_096..<4_352 { samples[frame] = samples[frame + 256] }
        let path = try Self.write(samples)
        defer { unlink(path) }
        #expect(TakeVerification.verify(Self.account(path)).misplacedSamples == 512)
        let late = TakeVerification.verify(Self.account(path, late: [LostSpan(position: 4_096, frames: 256)]))
        #expect(late.isAccountedFor && late.excusedSamples == 512, "\(late)")
        let uncertain = TakeVerification.verify(Self.account(path, uncertain: [LostSpan(position: 4_096, frames: 256)]))
        #expect(uncertain.isAccountedFor, "\(uncertain)")
        let elsewhere = TakeVerification.verify(Self.account(path, late: [LostSpan(position: 4_352, frames: 256)]))
        #expect(elsewhere.misplacedSamples == 512, "\(elsewhere)")
    }

    @Test("a pause moves the clock on by the frames it skipped; unreported, it is a shift")
    func pause() throws {
        var samples = Self.rightSamples()
        for frame in 5_000..<Self.frames {
            samples[frame] = Self.signalChannels.map { TestSignal.sample(frameTime: FrameTime.advance(Self.start, by: frame + 1_000), channel: $0) }
        }
        let path = try Self.write(samples)
        defer { unlink(path) }
        let paused = TakeVerification.verify(Self.account(path, pauses: [.init(position: 5_000, skippedFrames: 1_000)]))
        #expect(paused.isAccountedFor, "\(paused)")
        #expect(TakeVerification.verify(Self.account(path)).misplacedSamples == Int64((Self.frames - 5_000) * 2))
    }

    @Test("an aligned take's channels are each checked at their own shift")
    func alignedShifts() throws {
        let path = try Self.write(Self.rightSamples(shifts: [300, 1_000]))
        defer { unlink(path) }
        #expect(TakeVerification.verify(Self.account(path, shifts: [300, 1_000])).isAccountedFor)
        let wrong = TakeVerification.verify(Self.account(path, shifts: [300, 300]))
        #expect(wrong.misplacedSamples == Int64(Self.frames), "\(wrong)")
    }

    @Test("a file of another length than reported, or missing, is a problem")
    func lengthAndMissingFile() throws {
        let path = try Self.write(Self.rightSamples())
        defer { unlink(path) }
        let longer = TakeVerification.verify(Self.account(path, frames: Int64(Self.frames + 1)))
        #expect(!longer.isAccountedFor && longer.fileProblems.count == 1, "\(longer)")
        let missing = TakeVerification.verify(Self.account(path + ".gone"))
        #expect(!missing.isAccountedFor && missing.fileProblems.count == 1)
    }

    @Test("a take log entry becomes an account: files in the folder, tracks' sources and latencies, pauses, lost spans")
    func takeLogEntry() throws {
        var entry = TakeLogEntry(
            take: 4, status: .framesLost, startFrame: 1_000, sampleRate: 48_000, frames: 9_000,
            files: [TakeLogFile(path: "take-004-Kick.wav", tracks: ["Kick"], frames: 9_000),
                    TakeLogFile(path: "take-004-OH.wav", tracks: ["OH L", "OH R"], frames: 9_000)],
            tracks: [TakeLogTrack(name: "Kick", source: "sig:out_7"), TakeLogTrack(name: "OH L", source: "sig:out_1", alignedLatency: 300),
                     TakeLogTrack(name: "OH R", source: "sig:out_2")],
            lost: [TakeLogSpan(position: 10, frames: 256)],
            pauses: [TakeLogPause(position: 500, fromFrame: 1_500, toFrame: 2_500), TakeLogPause(position: 700, fromFrame: 2_700)])
        entry.late = [TakeLogSpan(position: 1_024, frames: 256)]
        entry.uncertain = [TakeLogSpan(position: 2_048, frames: 256)]
        entry.patching = [TakeLogPatch(position: 3_000, track: "OH R", source: "sig:out_2", connected: false, exact: true)]
        let account = try #require(TakeAccount(entry, folder: "/s"))
        #expect(account.startFrame == 1_000)
        #expect(account.files == [
            .init(path: "/s/take-004-Kick.wav", signalChannels: [6], frames: 9_000),
            .init(path: "/s/take-004-OH.wav", signalChannels: [0, 1], shifts: [300, 0], frames: 9_000,
                  unpatchedSpans: [[], [LostSpan(position: 3_000, frames: Int64.max - 3_000)]])])
        #expect(account.pauses == [.init(position: 500, skippedFrames: 1_000)])
        #expect(account.lostSpans == [LostSpan(position: 10, frames: 256)])
        #expect(account.lateCopySpans == [LostSpan(position: 1_024, frames: 256)])
        #expect(account.uncertainSpans == [LostSpan(position: 2_048, frames: 256)])
        #expect(account.frameTime(atPosition: 600) == 2_600)
        #expect(TakeAccount(entry, folder: "/s", signalChannel: { _ in nil }) == nil)
    }

    @Test("jcap's --meter json summary line becomes an account; a meter line does not")
    func meterSummaryLine() throws {
        let line = #"{"summary":{"channels":[{"aligned_latency":null,"clip_count":0,"highest_peak_db":-12,"name":"out_4","source":"sig:out_4"},"#
            + #"{"aligned_latency":null,"clip_count":0,"highest_peak_db":-12,"name":"out_6","source":"sig:out_6"}],"#
            + #""files":[{"channels":[1,2],"frames":10000,"path":"/r/a.wav","position":0},{"channels":[2],"frames":5000,"path":"/r/b.wav","position":10000}],"#
            + #""frames":15000,"late":[{"frames":256,"position":512}],"lost":[{"frames":128,"position":1024}],"outcome":"frames lost","#
            + #""pauses":[{"from_frame":9000,"position":8000,"to_frame":9500}],"sample_rate":48000,"session":null,"start_frame":1000,"#
            + #""take":null,"uncertain":[{"frames":256,"position":2048}],"xruns":1,"#
            + #""patching":[{"channel":2,"connected":false,"exact":false,"position":3000,"source":"sig:out_6","uncertain_frames":null},"#
            + #"{"channel":2,"connected":true,"exact":true,"position":4000,"source":"sig:out_6","uncertain_frames":null}]}}"#
        let account = try #require(TakeAccount(meterSummaryLine: line))
        #expect(account.startFrame == 1_000)
        let unpatched = [LostSpan(position: 3_000, frames: 1_000)]
        #expect(account.files == [.init(path: "/r/a.wav", signalChannels: [3, 5], frames: 10_000, unpatchedSpans: [[], unpatched]),
                                  .init(path: "/r/b.wav", signalChannels: [5], firstPosition: 10_000, frames: 5_000, unpatchedSpans: [unpatched])])
        #expect(account.lostSpans == [LostSpan(position: 1_024, frames: 128)])
        #expect(account.lateCopySpans == [LostSpan(position: 512, frames: 256)])
        #expect(account.uncertainSpans == [LostSpan(position: 2_048, frames: 256)])
        #expect(account.pauses == [.init(position: 8_000, skippedFrames: 500)])
        #expect(TakeAccount(meterSummaryLine: #"{"state":"recording","elapsed_frames":0}"#) == nil)
        // Another mapping of ports to signal channels (a NetJACK2 slave's capture ports).
        let slave = line.replacingOccurrences(of: "sig:out_", with: "system:capture_")
        #expect(TakeAccount(meterSummaryLine: slave) == nil)
        let mapped = try #require(TakeAccount(meterSummaryLine: slave) { $0 == "system:capture_4" ? 3 : $0 == "system:capture_6" ? 5 : nil })
        #expect(mapped.files == account.files)
    }

    @Test("a channel is unpatched from the disconnection that leaves it no source to the next connection")
    func unpatchedSpans() {
        let changes: [(position: Int64, source: String, connected: Bool)] = [
            (5_000, "b", false), (1_000, "b", true), (2_000, "a", false), (3_000, "a", true), (4_000, "a", false), (4_500, "c", true),
            (6_000, "c", false)]
        // b joins a at 1,000, so a's going at 2,000 leaves b; unpatched only from 6,000, when c goes.
        #expect(TakeAccount.unpatchedSpans(source: "a", changes: changes) == [LostSpan(position: 6_000, frames: Int64.max - 6_000)])
        #expect(TakeAccount.unpatchedSpans(source: "a", changes: [(2_000, "a", false), (3_000, "a", true)])
            == [LostSpan(position: 2_000, frames: 1_000)])
        #expect(TakeAccount.unpatchedSpans(source: "a", changes: []) == [])
    }

    @Test("silence where jcap reported a channel unpatched is accounted for; elsewhere, or sound there, it is not")
    func unpatchedSilence() throws {
        var samples = Self.rightSamples()
        for frame in 6_000..<Self.frames { samples[frame][1] = 0 }
        samples[9_000][1] = 0.5 // no signal: sound from nowhere
        let path = try Self.write(samples)
        defer { unlink(path) }
        var account = Self.account(path)
        #expect(TakeVerification.verify(account).misplacedSamples == Int64(Self.frames - 6_000))
        // Reported a little early ("near" a frame): the signal in place still passes before the silence.
        account.files[0].unpatchedSpans = [[], [LostSpan(position: 5_000, frames: Int64.max - 5_000)]]
        let reported = TakeVerification.verify(account)
        #expect(reported.misplacedSamples == 1, "\(reported)")
        #expect(reported.firstMisplaced.first?.position == 9_000)
        #expect(reported.silentReportedSamples == Int64(Self.frames - 6_000 - 1))
        // The other channel was not reported unpatched.
        account.files[0].unpatchedSpans = [[LostSpan(position: 5_000, frames: Int64.max - 5_000)], []]
        #expect(TakeVerification.verify(account).misplacedSamples == Int64(Self.frames - 6_000))
        // Reported reconnected at 8,000: silence from there is not accounted for.
        account.files[0].unpatchedSpans = [[], [LostSpan(position: 5_000, frames: 3_000)]]
        #expect(TakeVerification.verify(account).misplacedSamples == Int64(Self.frames - 8_000))
    }
}
