import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// `jcap session --overdub N` through a loopback client (`jcap-testsignal loopback`), which
/// stands in for an interface with a cable from its outputs to its inputs: what reaches
/// `loop:playback_K` leaves `loop:capture_K` exactly 300 + capture latency K frames later, and
/// the latencies are declared on its ports as a driver's are. The overdub of a take, played out
/// and recorded back through it, must be the take again, sample for sample.
final class OverdubTests: JackTestCase {
    nonisolated(unsafe) static var loop: Subprocess?
    static let playbackLatency = 300
    /// Each `loop:capture_K`'s declared latency.
    static let captureLatencies = [100, 700, 0]

    override class func setUp() {
        super.setUp()
        guard setUpFailure == nil else { return }
        do {
            loop = try Subprocess(try Executables.built("jcap-testsignal"),
                                  ["loopback", "--channels", "3", "--name", "loop", "--playback-latency", "\(playbackLatency)",
                                   "--capture-latency", captureLatencies.map(String.init).joined(separator: ",")],
                                  server: server.name, directory: NSTemporaryDirectory())
            try waitFor("the loopback's ports") { observer.audioOutputPorts().contains("loop:capture_3") }
            try waitFor("declared latencies") {
                (try? observer.port(named: "loop:capture_2")).map { observer.captureLatency(of: $0).maximum } == 700
                    && (try? observer.port(named: "loop:playback_1")).map { observer.playbackLatency(of: $0).maximum } == 300
            }
        } catch {
            setUpFailure = error
        }
    }

    override class func tearDown() {
        loop?.signal(SIGTERM)
        _ = try? loop?.wait(timeout: 10)
        loop = nil
        super.tearDown()
    }

    /// Tracks A (mono) and a stereo group B+C, recording the loopback's three returns.
    func writeSession(alignLatency: Bool = false) throws -> String {
        let text = """
            [session]
            name = "dub"
            format = "wav"
            bit_depth = "float"
            \(alignLatency ? "align_latency = true" : "")

            [[track]]
            name = "A"
            source = "loop:capture_1"

            [[track]]
            name = "B"
            source = "loop:capture_2"
            group = "BC"

            [[track]]
            name = "C"
            source = "loop:capture_3"
            group = "BC"
            """
        let file = path("dub.toml")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    var takeNames: [String] { ["A", "BC"] }

    func takeFile(_ take: Int, _ name: String) -> String { path("dub/take-00\(take)-\(name).wav") }

    /// Every sample of a file, interleaved.
    func samples(_ file: String) throws -> (channels: Int, data: [Float]) {
        let sound = try SoundFile.open(readingFrom: file)
        var data = [Float](repeating: 0, count: Int(sound.frames) * sound.channels)
        let read = data.withUnsafeMutableBufferPointer { sound.read(into: $0.baseAddress!, frames: Int(sound.frames)) }
        XCTAssertEqual(Int64(read), sound.frames, file)
        return (sound.channels, data)
    }

    /// Take 1: the test signal through the loopback (sig:out_K to loop:playback_K), recorded
    /// aligned to capture latency: each file is the signal from JACK frame (start − 300) on.
    func recordTakeOne(_ session: String) throws -> TakeLogEntry {
        let sources = (1...3).map { "sig:out_\($0)" }
        let returns = (1...3).map { "loop:playback_\($0)" }
        for (source, destination) in zip(sources, returns) {
            do {
                try observer.connect(source, to: destination)
            } catch {
                // Seen once with the machine overloaded (two busy loops and a second test run):
                // say whether the loopback and the signal were still there, and what they said.
                let ports = [source, destination].map { "\($0) \((try? observer.port(named: $0)) != nil ? "present" : "gone")" }
                throw TestFailure("\(error); now \(ports.joined(separator: ", ")); loopback running: "
                                  + "\(Self.loop.map { kill($0.pid, 0) == 0 } ?? false), said: \(Self.loop?.errorOutput.suffix(500) ?? "")")
            }
        }
        defer { for (source, destination) in zip(sources, returns) { try? observer.disconnect(source, from: destination) } }
        let run = try runJcap(["session", session, "--for", "24000f", "--align-latency", "--meter", "none"])
        // A loaded host can cost the take frames: jcap logs them and exits by the log's status.
        let entry = try XCTUnwrap(try TakeLog(folder: path("dub")).entries().first { $0.take == 1 }, run.errors)
        XCTAssertEqual(run.status, ExitStatus(for: entry.status).rawValue, "\(entry.status): \(run.errors)")
        XCTAssertEqual(entry.frames, 24_000)
        var account = try XCTUnwrap(TakeAccount(entry, folder: path("dub"), signalChannel: TakeAccount.signalChannel(ofCapturePort:)),
                                    "\(entry)")
        // Aligned to each capture latency, every file is the signal from JACK frame start - 300.
        account.files = account.files.map { var file = $0; file.shifts = file.shifts.map { _ in -Self.playbackLatency }; return file }
        // The loopback's delay lines count its own cycles, not JACK's frames: after a loss, for a
        // period and its delay, a return may still give the signal from before it.
        let carry = Int64(server.period + Self.playbackLatency + Self.captureLatencies.max()!)
        account.uncertainSpans += account.lostSpans.map { LostSpan(position: $0.position + $0.frames, frames: carry) }
        assertAccountedFor(account, "take 1: the signal from JACK frame start - 300, every sample, or what jcap reported")
        return entry
    }

    /// Checks take 2, an overdub of take 1 recorded back through the loopback, against what was
    /// reported: the run's status is the worst of take 2's log entry's and the player's (an
    /// underrun, "playback fell behind", loses frames), and each channel of each file holds
    /// `expected(file, channel, take 1's frame)` at every frame, or what take 2's log or the
    /// player reported excuses (`firstUnexplainedSample`: the player and the loopback count their
    /// own cycles, so past a loss they lag the clock).
    func assertOverdub(_ overdub: TakeLogEntry, status: Int32, errors: String, tolerance: Float = 0, line: UInt = #line,
                       expected: (_ file: String, _ channel: Int, _ frame: Int) -> Float?) throws {
        let start = try XCTUnwrap(overdub.overdub, "\(overdub)", line: line).playbackStartFrame
        let underruns = errors.split(separator: "\n").filter { $0.hasPrefix("jcap: playback fell behind: ") }.compactMap { text -> LostSpan? in
            guard let frames = number(after: "fell behind: ", in: String(text)), let frame = number(after: "(JACK frame ", in: String(text))
            else { return nil }
            return LostSpan(position: Int64(FrameTime.distance(from: start, to: UInt32(truncatingIfNeeded: frame))), frames: frames)
        }
        XCTAssertEqual(status, ExitStatus.worst(ExitStatus(for: overdub.status), underruns.isEmpty ? .success : .lostFrames).rawValue,
                       "\(overdub.status): \(errors)", line: line)
        let account = try XCTUnwrap(TakeAccount(overdub, folder: path("dub"), signalChannel: TakeAccount.signalChannel(ofCapturePort:)),
                                    "\(overdub)", line: line)
        for name in takeNames {
            let recorded = try samples(takeFile(overdub.take, name))
            for channel in 0..<recorded.channels {
                let data = stride(from: channel, to: recorded.data.count, by: recorded.channels).map { recorded.data[$0] }
                let wrong = firstUnexplainedSample(of: data, in: 0..<data.count, account: account, underruns: underruns,
                                                   tolerance: tolerance) { position, lag in expected(name, channel, position - lag) }
                XCTAssertNil(wrong.map { "frame \($0.position): \(data[$0.position]), \($0.lag) frames behind" },
                             "take \(overdub.take)'s \(name), channel \(channel + 1); \(account); \(errors)", line: line)
            }
        }
    }

    /// Take 1's file `name`, channel by channel: what an overdub played.
    func takeOne(_ name: String) throws -> [[Float]] {
        let played = try samples(takeFile(1, name))
        return (0..<played.channels).map { channel in stride(from: channel, to: played.data.count, by: played.channels).map { played.data[$0] } }
    }

    func testAnOverdubPlayedThroughALoopbackIsTheTakeAgainSampleForSample() throws {
        let session = try writeSession()
        _ = try recordTakeOne(session)
        let run = try runJcap(["session", session, "--overdub", "1", "--at", "+0.5s",
                               "--playback-port", "loop:playback_*", "--meter", "none", "-v"])
        let entries = try TakeLog(folder: path("dub")).entries()
        XCTAssertTrue(run.errors.contains("dub-play:A -> loop:playback_1"), run.errors)
        XCTAssertTrue(run.errors.contains("playback latency 6.3 ms (300 frames)"), run.errors)
        let overdub = try XCTUnwrap(entries.first { $0.take == 2 }, run.errors)
        XCTAssertEqual(overdub.frames, 24_000, "as long as the take it played")
        let alignment = try XCTUnwrap(overdub.overdub, "the log says how it was aligned")
        XCTAssertEqual(alignment.take, 1)
        XCTAssertEqual(alignment.playbackLatency, Self.playbackLatency)
        XCTAssertEqual(overdub.startFrame, FrameTime.advance(alignment.playbackStartFrame, by: Self.playbackLatency))
        XCTAssertEqual(overdub.tracks.map(\.alignedLatency), Self.captureLatencies, "each track aligned to its own capture latency")
        let played = try Dictionary(uniqueKeysWithValues: takeNames.map { ($0, try takeOne($0)) })
        for name in takeNames { XCTAssertEqual(try samples(takeFile(2, name)).channels, played[name]?.count) }
        // Take 2 is take 1 sample for sample.
        try assertOverdub(overdub, status: run.status, errors: run.errors) { name, channel, frame in
            played[name].flatMap { $0[channel].indices.contains(frame) ? $0[channel][frame] : nil }
        }
    }

    /// `--overdub 1 --mix`: take 1 plays as one stereo pair (A centred, the group BC keeping
    /// its left and right) into the loopback's first two returns; the overdub's A and B are the
    /// mix's left and right, sample for sample, and C is silent.
    func testAnOverdubMonitorsTheTakeAsAStereoMix() throws {
        let session = try writeSession()
        _ = try recordTakeOne(session)
        let run = try runJcap(["session", session, "--overdub", "1", "--mix", "--at", "+0.5s",
                               "--playback-port", "loop:playback_1", "--playback-port", "loop:playback_2", "--meter", "none"])
        let entries = try TakeLog(folder: path("dub")).entries()
        XCTAssertTrue(run.errors.contains("dub-play:mix_L -> loop:playback_1"), run.errors)
        XCTAssertTrue(run.errors.contains("dub-play:mix_R -> loop:playback_2"), run.errors)
        let overdub = try XCTUnwrap(entries.first { $0.take == 2 }, run.errors)
        XCTAssertEqual(overdub.frames, 24_000)
        let a = try takeOne("A")[0]
        let bc = try takeOne("BC")
        let mix = PlaybackMix(pans: [0, 0])
        func mixed(_ output: Int, _ frame: Int) -> Float? {
            guard a.indices.contains(frame) else { return nil }
            return 0 + a[frame] * mix.gain(file: 0, channels: 1, output: output, volume: 1)
                + bc[output][frame] * mix.gain(file: 1, channels: 2, output: output, volume: 1)
        }
        XCTAssertEqual(try samples(takeFile(2, "A")).data.count, 24_000)
        XCTAssertEqual(try samples(takeFile(2, "BC")).channels, 2)
        // A and B are the mix's left and right; nothing played into the third return.
        try assertOverdub(overdub, status: run.status, errors: run.errors, tolerance: 1e-6) { name, channel, frame in
            name == "A" ? mixed(0, frame) : channel == 0 ? mixed(1, frame) : 0
        }

        let alone = try runJcap(["session", session, "--mix", "--for", "1s", "--meter", "none"])
        XCTAssertEqual(alone.status, 64, alone.errors)
        XCTAssertTrue(alone.errors.contains("--overdub too"), alone.errors)
    }

    /// On a terminal, `M1` mutes track 1 (A) of the overdub's mix: the overdub's A and B
    /// record the mix of BC alone. Without a mix, `M1` is refused in one line.
    func testMuteKeyOfAnOverdubsMixOnATerminal() throws {
        let session = try writeSession()
        _ = try recordTakeOne(session)
        let refused = try TerminalSession(try Executables.built("jcap"), ["session", session, "--overdub", "1"],
                                          columns: 80, rows: 24, server: server.name, directory: directory)
        try refused.waitForScreen("READY") { $0.contains { $0.contains("READY") } }
        refused.type("M1")
        try refused.waitFor("only a mix (--mix) can mute or solo a track")
        refused.type("q")
        XCTAssertEqual(try refused.wait(), 0, refused.transcript)

        let terminal = try TerminalSession(try Executables.built("jcap"),
                                           ["session", session, "--overdub", "1", "--mix",
                                            "--playback-port", "loop:playback_1", "--playback-port", "loop:playback_2"],
                                           columns: 80, rows: 24, server: server.name, directory: directory)
        try terminal.waitForScreen("READY") { $0.contains { $0.contains("READY") } }
        terminal.type("?")
        try terminal.waitFor("M N / S N mute / solo track N of an overdub's --mix")
        terminal.type("M1")
        terminal.type("r")
        try terminal.waitForScreen("take 2 recording") { $0.contains { $0.contains("REC") } }
        usleep(300_000)
        terminal.type("ss")
        try Self.waitFor("take 2 to be logged") {
            ((try? TakeLog(folder: self.path("dub")).entries()) ?? []).contains { $0.take == 2 && $0.status != .recording }
        }
        terminal.type("q")
        let status = try terminal.wait()
        XCTAssertFalse(terminal.transcript.contains("only a mix"), terminal.transcript)
        // A loaded host can cost take 2 frames, or the player a period: jcap logs or says so, and
        // exits 3 by that.
        let take = try XCTUnwrap(try TakeLog(folder: path("dub")).entries().first { $0.take == 2 }, terminal.transcript)
        let fellBehind = terminal.transcript.contains("jcap: playback fell behind: ")
        XCTAssertEqual(status, ExitStatus.worst(ExitStatus(for: take.status), fellBehind ? .lostFrames : .success).rawValue,
                       "\(take.status): \(terminal.transcript)")

        let bc = try samples(takeFile(1, "BC")).data
        let mix = PlaybackMix(pans: [0, 0])
        let left = try samples(takeFile(2, "A")).data
        XCTAssertGreaterThan(left.count, 4_800, "the overdub ran a while")
        // Past the first periods (a gain ramps for 10 ms), the left is BC's alone: A is muted,
        // every sample or what take 2 reported. The loopback, like the player, counts its own
        // cycles, not JACK's frames: past a loss both may lag the clock.
        let gain = mix.gain(file: 1, channels: 2, output: 0, volume: 1)
        let account = try XCTUnwrap(TakeAccount(take, folder: path("dub"), signalChannel: TakeAccount.signalChannel(ofCapturePort:)),
                                    "\(take)")
        let wrong = firstUnexplainedSample(of: left, in: 2_048..<left.count, account: account) { position, lag in
            (0..<bc.count / 2).contains(position - lag) ? bc[2 * (position - lag)] * gain : nil
        }
        XCTAssertNil(wrong.map { "sample \($0.position): \(left[$0.position]) recorded, \($0.lag) frames behind" },
                     "the mix's left without A; take 2: \(account)")
        XCTAssertTrue((2_048..<left.count).contains { left[$0] != 0 }, "BC still plays")
    }

    func testAnOverdubOnAChosenFrameLogsItAndThePlayerStartsThere() throws {
        let session = try writeSession(alignLatency: true)
        _ = try recordTakeOne(session)
        let playFrame = frameAhead(3)
        let run = try runJcap(["session", session, "--overdub", "1", "--at", "@\(playFrame)", "--for", "4800f",
                               "--playback-port", "loop:playback_*", "--meter", "none", "-v"])
        let overdub = try XCTUnwrap(try TakeLog(folder: path("dub")).entries().first { $0.take == 2 }, run.errors)
        XCTAssertEqual(overdub.overdub?.playbackStartFrame, playFrame)
        XCTAssertEqual(overdub.startFrame, FrameTime.advance(playFrame, by: Self.playbackLatency))
        XCTAssertEqual(overdub.frames, 4_800, "--for sets the length")
        let played = try Dictionary(uniqueKeysWithValues: takeNames.map { ($0, try takeOne($0)) })
        for name in takeNames { XCTAssertEqual(try samples(takeFile(2, name)).data.count, 4_800 * (played[name]?.count ?? 0)) }
        // Take 2 is take 1's start.
        try assertOverdub(overdub, status: run.status, errors: run.errors) { name, channel, frame in
            played[name].flatMap { $0[channel].indices.contains(frame) ? $0[channel][frame] : nil }
        }
    }

    func testTheRecordKeyPlaysTheTakeAndRecordsAnOverdubUntilStopped() throws {
        let session = try writeSession()
        _ = try recordTakeOne(session)
        let keys = Pipe()
        let jcap = try Subprocess(try Executables.built("jcap"),
                                  ["session", session, "--overdub", "1", "--playback-port", "loop:playback_*", "--meter", "none"],
                                  server: server.name, directory: directory, standardInput: keys.fileHandleForReading)
        try Self.waitFor("the session") { jcap.errorOutput.contains("r plays take 1 from its start") }
        keys.fileHandleForWriting.write(Data("r".utf8))
        try Self.waitFor("the overdub to start") { jcap.errorOutput.contains("take 1 plays from its start; take 2 starts") }
        usleep(500_000)
        keys.fileHandleForWriting.write(Data("s".utf8))
        try Self.waitFor("the overdub to be logged") {
            ((try? TakeLog(folder: self.path("dub")).entries()) ?? []).contains { $0.take == 2 && $0.status != .recording }
        }
        keys.fileHandleForWriting.write(Data("q".utf8))
        let status = try jcap.wait(timeout: 20)
        let errors = jcap.errorOutput
        XCTAssertFalse(errors.contains("JACK frame") || errors.contains("starting at frame") || errors.contains("frames each"),
                       "times, not frames, without -v: \(errors)")
        XCTAssertTrue(errors.contains("playback latency 6.3 ms\n"), errors)
        let overdub = try XCTUnwrap(try TakeLog(folder: path("dub")).entries().first { $0.take == 2 }, errors)
        XCTAssertEqual(overdub.overdub?.take, 1)
        XCTAssertGreaterThan(overdub.frames, 0)
        XCTAssertLessThan(overdub.frames, 24_000, "stopped by the key before take 1 ended")
        let played = try Dictionary(uniqueKeysWithValues: takeNames.map { ($0, try takeOne($0)) })
        for name in takeNames {
            let recorded = try samples(takeFile(2, name))
            XCTAssertEqual(Int64(recorded.data.count / recorded.channels), overdub.frames)
        }
        // Take 2 is take 1's start.
        try assertOverdub(overdub, status: status, errors: errors) { name, channel, frame in
            played[name].flatMap { $0[channel].indices.contains(frame) ? $0[channel][frame] : nil }
        }
    }

    func testBadOverdubsAreRefusedInOneLine() throws {
        let session = try writeSession()
        let missing = try runJcap(["session", session, "--overdub", "9", "--for", "1s", "--meter", "none"])
        XCTAssertEqual(missing.status, 23, missing.errors)
        XCTAssertTrue(missing.errors.contains("jcap: error: no take 9 in the take log"), missing.errors)
        // Takes the log has but that cannot be played in line: one at another rate, one discarded.
        let log = TakeLog(folder: path("dub"))
        try log.append(TakeLogEntry(take: 5, status: .complete, sampleRate: 44_100, frames: 44_100,
                                    files: [TakeLogFile(path: "take-005-A.wav", tracks: ["A"])]))
        try log.append(TakeLogEntry(take: 6, status: .discarded, sampleRate: 48_000, frames: 48_000))
        for (take, reason) in [(5, "take 5 was recorded at 44100 Hz and the server runs at 48000 Hz"), (6, "take 6 was discarded")] {
            let run = try runJcap(["session", session, "--overdub", "\(take)", "--for", "1s", "--meter", "none"])
            XCTAssertEqual(run.status, 23, run.errors)
            XCTAssertTrue(run.errors.contains("jcap: error: overdub: \(reason)"), run.errors)
        }
        for (arguments, flag) in [(["--overdub", "1", "--at", "14:00:00"], "--at"),
                                  (["--overdub", "1", "--trigger", "-40dB"], "--overdub"),
                                  (["--overdub", "1", "--split", "10s"], "--overdub"),
                                  (["--overdub", "0"], "--overdub"),
                                  (["--playback-port", "loop:playback_1", "--for", "1s"], "--playback-port")] {
            let run = try runJcap(["session", session, "--meter", "none"] + arguments)
            XCTAssertEqual(run.status, 64, "\(arguments): \(run.errors)")
            XCTAssertTrue(run.errors.contains("jcap: error: ") && run.errors.contains(flag), "\(arguments): \(run.errors)")
            XCTAssertEqual(run.errors.split(separator: "\n").filter { $0.hasPrefix("jcap: error") }.count, 1, run.errors)
        }
    }
}
