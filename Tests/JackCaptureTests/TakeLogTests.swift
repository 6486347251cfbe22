import Foundation
import Testing
@testable import JackCapture

@Suite("Take log")
struct TakeLogTests {
    let folder: TakeLogFolder

    init() throws {
        folder = try TakeLogFolder("takelog")
    }

    /// What the recorder appends when take `take` starts: two per-track files.
    func startRecord(_ take: Int, startFrame: UInt32 = 1_000) -> TakeLogEntry {
        let number = String(format: "%03d", take)
        return TakeLogEntry(
            take: take, status: .recording, startFrame: startFrame, startTime: "2026-11-22T14:03:07.123456Z",
            sampleRate: 48_000,
            files: [TakeLogFile(path: "take-\(number)-Kick In.wav", tracks: ["Kick In"]),
                    TakeLogFile(path: "take-\(number)-Snare.wav", tracks: ["Snare"])],
            tracks: [TakeLogTrack(name: "Kick In", source: "system:capture_1", captureLatency: 64),
                     TakeLogTrack(name: "Snare", source: "system:capture_2", captureLatency: 64)])
    }

    /// What the recorder appends when the take ends: no start frame or time (they were in the
    /// start record), everything known at the end.
    func endRecord(_ take: Int, frames: Int64 = 96_000) -> TakeLogEntry {
        let number = String(format: "%03d", take)
        return TakeLogEntry(
            take: take, status: .framesLost, sampleRate: 48_000, frames: frames,
            files: [TakeLogFile(path: "take-\(number)-Kick In.wav", tracks: ["Kick In"], frames: frames),
                    TakeLogFile(path: "take-\(number)-Snare.wav", tracks: ["Snare"], frames: frames)],
            tracks: [TakeLogTrack(name: "Kick In", source: "system:capture_1", captureLatency: 64,
                                  highestPeakDBFS: -3.25, clippedSamples: 0),
                     TakeLogTrack(name: "Snare", source: "system:capture_2", captureLatency: 64,
                                  highestPeakDBFS: -0.5, clippedSamples: 2)],
            xruns: [TakeLogSpan(position: 4_096, frames: 256)],
            lost: [TakeLogSpan(position: 4_096, frames: 256), TakeLogSpan(position: 9_000, frames: 224)],
            pauses: [TakeLogPause(position: 48_000, fromFrame: 49_000, toFrame: 60_000)])
    }

    // MARK: Appending and merging

    @Test("nothing is created until the first append")
    func lazyCreation() throws {
        let log = folder.log
        #expect(try log.entries().isEmpty)
        #expect(log.nextTakeNumber() == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        try log.append(startRecord(1))
        #expect(folder.exists(TakeLog.fileName))
    }

    @Test("a start and an end record merge into one entry; the end's fields replace, absent ones are kept")
    func startAndEndMerge() throws {
        let log = folder.log
        try log.append(startRecord(1))
        try log.append(startRecord(2, startFrame: 500_000))
        #expect(try log.entries().map(\.status) == [.recording, .recording])
        try log.append(endRecord(1))

        let entries = try log.entries()
        #expect(entries.map(\.take) == [1, 2])
        var expected = endRecord(1)
        expected.startFrame = 1_000                           // kept from the start record
        expected.startTime = "2026-11-22T14:03:07.123456Z"    // kept from the start record
        #expect(entries[0] == expected)
        #expect(entries[1] == startRecord(2, startFrame: 500_000))
        // One line a record, nothing rewritten.
        #expect(try folder.logText().split(separator: "\n").count == 3)
    }

    @Test("entries come back by take number, whatever order the records were written in")
    func orderedByTake() throws {
        let log = folder.log
        for take in [3, 1, 2] { try log.append(startRecord(take)) }
        #expect(try log.entries().map(\.take) == [1, 2, 3])
    }

    @Test("an entry that cannot be read back is refused before anything is written")
    func invalidEntries() throws {
        let log = folder.log
        #expect(throws: TakeLogError.invalidEntry(take: 0, reason: "take number 0 is below 1")) {
            try log.append(TakeLogEntry(take: 0, status: .complete, sampleRate: 48_000))
        }
        var negative = startRecord(1)
        negative.frames = -1
        #expect(throws: TakeLogError.self) { try log.append(negative) }
        #expect(!folder.exists(TakeLog.fileName))
    }

    @Test("silence (-inf dBFS) is logged at the -160 floor; a NaN peak is left out")
    func peakFloor() throws {
        let log = folder.log
        var entry = endRecord(1)
        entry.tracks[0].highestPeakDBFS = -.infinity
        entry.tracks[1].highestPeakDBFS = .nan
        try log.append(entry)
        let read = try log.entries()[0]
        #expect(read.tracks[0].highestPeakDBFS == -160)
        #expect(read.tracks[1].highestPeakDBFS == nil)
    }

    // MARK: The file format

    @Test("a record's JSON keys are exactly the log's snake_case names, in the log's order")
    func jsonKeys() throws {
        let log = folder.log
        var entry = endRecord(1)
        entry.startFrame = 1_000
        entry.startTime = "2026-11-22T14:03:07.123456Z"
        entry.note = "keeper"
        try log.append(entry)
        let line = try folder.logText()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["take", "status", "start_frame", "start_time", "sample_rate", "frames", "files",
                                     "tracks", "xruns", "lost", "pauses", "note"])
        let file = try #require((object["files"] as? [[String: Any]])?.first)
        #expect(Set(file.keys) == ["path", "tracks", "frames"])
        let track = try #require((object["tracks"] as? [[String: Any]])?.first)
        #expect(Set(track.keys) == ["name", "source", "capture_latency", "highest_peak_dbfs", "clipped_samples"])
        let span = try #require((object["lost"] as? [[String: Any]])?.first)
        #expect(Set(span.keys) == ["position", "frames"])
        let pause = try #require((object["pauses"] as? [[String: Any]])?.first)
        #expect(Set(pause.keys) == ["position", "from_frame", "to_frame"])
        #expect(object["status"] as? String == "frames lost")
        #expect(object["start_time"] as? String == "2026-11-22T14:03:07.123456Z")

        // The exact text, so the order (take first) and the spelling of values are pinned too.
        #expect(line == """
            {"take":1,"status":"frames lost","start_frame":1000,"start_time":"2026-11-22T14:03:07.123456Z",\
            "sample_rate":48000,"frames":96000,\
            "files":[{"path":"take-001-Kick In.wav","tracks":["Kick In"],"frames":96000},\
            {"path":"take-001-Snare.wav","tracks":["Snare"],"frames":96000}],\
            "tracks":[{"name":"Kick In","source":"system:capture_1","capture_latency":64,"highest_peak_dbfs":-3.25,"clipped_samples":0},\
            {"name":"Snare","source":"system:capture_2","capture_latency":64,"highest_peak_dbfs":-0.5,"clipped_samples":2}],\
            "xruns":[{"position":4096,"frames":256}],\
            "lost":[{"position":4096,"frames":256},{"position":9000,"frames":224}],\
            "pauses":[{"position":48000,"from_frame":49000,"to_frame":60000}],"note":"keeper"}

            """)
    }

    @Test("the timing keys: transport frame, bar|beat|tick and trigger position after the start time, the aligned latency in each track; read back as written")
    func timingKeys() throws {
        let log = folder.log
        var entry = endRecord(1)
        entry.startFrame = 1_000
        entry.transportFrame = 96_000
        entry.bbt = "3|2|0480"
        entry.triggerPosition = 24_000
        entry.tracks = entry.tracks.map { var track = $0; track.alignedLatency = 300; return track }
        try log.append(entry)
        let line = try folder.logText()
        #expect(line.hasPrefix(#"{"take":1,"status":"frames lost","start_frame":1000,"transport_frame":96000,"bbt":"3|2|0480","trigger_position":24000,"sample_rate":48000"#), "\(line)")
        #expect(line.contains(#""capture_latency":64,"aligned_latency":300,"highest_peak_dbfs""#), "\(line)")
        let read = try #require(try log.entries().first)
        #expect(read == entry)
        // A later record without them keeps them (an end record over a start record).
        try log.setNote(take: 1, "keeper")
        #expect(try log.entries().first?.transportFrame == 96_000)
        #expect(try log.entries().first?.triggerPosition == 24_000)
    }

    @Test("late and uncertain spans are written after the lost ones and read back (a session take's late copies reach its log)")
    func lateAndUncertainKeys() throws {
        let log = folder.log
        var entry = endRecord(1)
        entry.status = .placementUncertain
        entry.late = [TakeLogSpan(position: 633_600, frames: 256)]
        entry.uncertain = [TakeLogSpan(position: 230_656, frames: 256)]
        try log.append(entry)
        let line = try folder.logText()
        #expect(line.contains(#""late":[{"position":633600,"frames":256}],"uncertain":[{"position":230656,"frames":256}],"pauses""#), "\(line)")
        let read = try #require(try log.entries().first)
        #expect(read.late == entry.late && read.uncertain == entry.uncertain)
    }

    @Test("a NetJACK2 link dropout is written after the uncertain spans, read back, and listed by jcap takes")
    func dropoutsKey() throws {
        let log = folder.log
        var entry = endRecord(1)
        entry.status = .framesLost
        entry.lost = []
        entry.dropouts = [TakeLogSpan(position: 79_872, frames: 44_032)]
        try log.append(entry)
        let line = try folder.logText()
        #expect(line.contains(#""lost":[],"dropouts":[{"position":79872,"frames":44032}],"pauses""#), "\(line)")
        let read = try #require(try log.entries().first)
        #expect(read.dropouts == entry.dropouts)
        #expect(TakeListing.problems(read).contains("NetJACK2 link dropout: about 44032 frames from the master missing"))
        #expect(!TakeListing.problems(read).contains("frames lost"))
    }

    @Test("following the master's clock: its start frame after the NetJACK2 latency, its jumps after the dropouts (a jump back negative), read back and listed")
    func masterClockKeys() throws {
        let log = folder.log
        var entry = endRecord(1)
        entry.status = .framesLost
        entry.lost = []
        entry.netjackLatencyCycles = 2
        entry.masterStartFrame = 4_000_000_000
        entry.masterJumps = [TakeLogSpan(position: 76_800, frames: 47_104), TakeLogSpan(position: 77_824, frames: -1_024)]
        try log.append(entry)
        let line = try folder.logText()
        #expect(line.contains(#""netjack_latency_cycles":2,"master_start_frame":4000000000,"sample_rate""#), "\(line)")
        #expect(line.contains(#""lost":[],"master_jumps":[{"position":76800,"frames":47104},{"position":77824,"frames":-1024}],"pauses""#), "\(line)")
        let read = try #require(try log.entries().first)
        #expect(read.masterStartFrame == entry.masterStartFrame && read.masterJumps == entry.masterJumps)
        #expect(TakeListing.problems(read).contains("master clock jumps: +47104, -1024 frames"))
        #expect(!TakeListing.problems(read).contains("frames lost"))
    }

    @Test("JACK's clock renumbered at period changes: the steps after the master's jumps, read back and listed, the take complete")
    func clockStepsKey() throws {
        let log = folder.log
        var entry = endRecord(1)
        entry.status = .complete
        entry.lost = []
        entry.clockSteps = [TakeLogSpan(position: 54_272, frames: 1_024), TakeLogSpan(position: 111_616, frames: -1_536)]
        try log.append(entry)
        let line = try folder.logText()
        #expect(line.contains(#""lost":[],"clock_steps":[{"position":54272,"frames":1024},{"position":111616,"frames":-1536}],"pauses""#), "\(line)")
        let read = try #require(try log.entries().first)
        #expect(read.clockSteps == entry.clockSteps)
        #expect(TakeListing.problems(read).contains("JACK clock steps at a period change: +1024, -1536 frames, none missing"))
    }

    @Test("patching during a take is written after the pauses, read back, and listed by jcap takes")
    func patchingKey() throws {
        let log = folder.log
        var entry = endRecord(1)
        entry.patching = [
            TakeLogPatch(position: 48_128, track: "Gtr", source: "gtr:out", connected: false, exact: true),
            TakeLogPatch(position: 96_256, track: "Gtr", source: "system:capture_3", connected: true, exact: true, uncertainFrames: 256),
            TakeLogPatch(position: 120_000, track: "Vox", source: "a:b", connected: true, exact: false),
        ]
        try log.append(entry)
        let line = try folder.logText()
        #expect(line.contains(#"}],"patching":[{"position":48128,"track":"Gtr","source":"gtr:out","connected":false,"exact":true},"#
            + #"{"position":96256,"track":"Gtr","source":"system:capture_3","connected":true,"exact":true,"uncertain_frames":256},"#
            + #"{"position":120000,"track":"Vox","source":"a:b","connected":true,"exact":false}]"#), "\(line)")
        let read = try #require(try log.entries().first)
        #expect(read.patching == entry.patching)
        let problems = TakeListing.problems(read)
        #expect(problems.contains("Gtr: gtr:out disconnected at 0:00:01.002, Gtr: system:capture_3 connected at 0:00:02.005, "
            + "Vox: a:b connected near 0:00:02.500"), "\(problems)")
        #expect(line.range(of: "\"pauses\"")!.lowerBound < line.range(of: "\"patching\"")!.lowerBound, "\(line)")
        var flooded = endRecord(2)
        flooded.lostEvents = 17
        try log.append(flooded)
        let floodedLine = try folder.logText().split(separator: "\n").last.map(String.init) ?? ""
        #expect(floodedLine.contains(#""pauses":[{"position":48000,"from_frame":49000,"to_frame":60000}],"lost_events":17"#), "\(floodedLine)")
        let readFlooded = try #require(try log.entries().last)
        #expect(readFlooded.lostEvents == 17)
        #expect(TakeListing.problems(readFlooded).contains("17 events lost (a ring was full)"))
        // A later record without the key (none to say) keeps what the earlier one said.
        try log.append(TakeLogEntry(take: 1, status: .complete, sampleRate: 48_000))
        #expect(try #require(try log.entries().first).patching == entry.patching)
    }

    @Test("a take's connection events become its patching: armed tracks only, within the segment, none from before the take")
    func patchingFromEvents() {
        let events: [CaptureEvent] = [
            .portDisconnected(channel: 1, source: "old:out", frameTime: 5, position: 0, timing: .near),
            .portConnected(channel: 0, source: "system:capture_1", frameTime: 9, position: 1_024, timing: .exact(uncertainFrames: 256)),
            .portDisconnected(channel: 2, source: "unarmed:out", frameTime: 9, position: 2_048, timing: .exact(uncertainFrames: 0)),
            .portDisconnected(channel: 1, source: "b:out", frameTime: 9, position: 50_000, timing: .near),
            .xrun(frameTime: 9, position: 3),
        ]
        let names = ["A", "B", "C"]
        #expect(SessionTake.patching(in: events, trackNames: names, armed: [0, 1], from: 0, to: 48_000) == [
            TakeLogPatch(position: 1_024, track: "A", source: "system:capture_1", connected: true, exact: true, uncertainFrames: 256),
        ])
        #expect(SessionTake.patching(in: events, trackNames: names, armed: [0, 1], from: 48_000, to: 96_000) == [
            TakeLogPatch(position: 2_000, track: "B", source: "b:out", connected: false, exact: false),
        ])
    }

    @Test("an overdub's key: the take it played, the JACK frame it played on and the playback latency, after the trigger position; read back and kept by later records")
    func overdubKey() throws {
        let log = folder.log
        var entry = endRecord(2)
        entry.startFrame = 50_300
        entry.overdub = TakeLogOverdub(take: 1, playbackStartFrame: 50_000, playbackLatency: 300)
        try log.append(entry)
        let line = try folder.logText()
        #expect(line.hasPrefix(#"{"take":2,"status":"frames lost","start_frame":50300,"overdub":{"take":1,"playback_start_frame":50000,"playback_latency":300},"sample_rate":48000"#), "\(line)")
        #expect(try log.entries().first == entry)
        try log.setNote(take: 2, "bass overdub")
        #expect(try log.entries().first?.overdub == entry.overdub)
        #expect(TakeListing.problems(try #require(try log.entries().first)).hasSuffix("overdub of take 1"))
    }

    @Test("an overdub of take 0 or with a negative playback latency is refused, not written")
    func overdubKeyRefusesNonsense() throws {
        var entry = endRecord(2)
        entry.overdub = TakeLogOverdub(take: 0, playbackStartFrame: 0, playbackLatency: 0)
        #expect(entry.invalidity() != nil)
        entry.overdub = TakeLogOverdub(take: 1, playbackStartFrame: 0, playbackLatency: -1)
        #expect(entry.invalidity() != nil)
        entry.overdub = TakeLogOverdub(take: 1, playbackStartFrame: 0, playbackLatency: 0)
        #expect(entry.invalidity() == nil)
    }

    @Test("every status is written as the log spells it")
    func statusNames() throws {
        #expect(TakeStatus.allCases.map(\.rawValue) == ["recording", "complete", "frames lost", "placement uncertain", "interrupted",
                                                        "server shutdown", "disk full", "write failed",
                                                        "discarded", "deleted"])
    }

    @Test("a hand-written minimal line reads, with defaults for what it leaves out")
    func minimalLine() throws {
        try folder.appendRaw("{\"take\":4,\"status\":\"complete\"}\n")
        #expect(try folder.log.entries() == [TakeLogEntry(take: 4, status: .complete, sampleRate: 0)])
    }

    // MARK: Torn and damaged lines

    @Test("a torn last line (a write segmentStart short) is skipped, and the next append starts on a new line")
    func tornLastLine() throws {
        let log = folder.log
        try log.append(startRecord(1))
        let full = String(decoding: TakeLogRecord(endRecord(1)).encoded(), as: UTF8.self)
        try folder.appendRaw(String(full.prefix(70)))   // killed mid-write: no newline, brackets open
        #expect(try log.entries() == [startRecord(1)])

        try log.append(startRecord(2))
        let lines = try folder.logText().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4)                         // start 1, the torn line, start 2, ""
        #expect(lines[1] == full.prefix(70))
        #expect(try log.entries() == [startRecord(1), startRecord(2)])
    }

    @Test("a run of NUL bytes (a power segmentStart's unwritten tail) is skipped")
    func nulTail() throws {
        let log = folder.log
        try log.append(startRecord(1))
        try folder.appendRaw(String(repeating: "\0", count: 40))
        #expect(try log.entries() == [startRecord(1)])
        try log.append(endRecord(1))
        #expect(try log.entries().first?.status == .framesLost)
    }

    @Test("a damaged line that is not a torn write is an error naming the file and line")
    func damagedLine() throws {
        let log = folder.log
        try log.append(startRecord(1))
        try folder.appendRaw("{\"take\":2,\"status\":\"bogus\"}\n")
        try log.append(startRecord(3))
        do {
            _ = try log.entries()
            Issue.record("a bad status was accepted")
        } catch {
            guard case .unreadableLog(let path, let line, _) = error else { throw error }
            #expect(path == folder.logPath)
            #expect(line == 2)
            #expect(error.description.hasPrefix("cannot read the take log \(folder.logPath), line 2: unknown status"))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("read() skips a line it cannot use and reports it with its line; an unknown later status keeps the take's other facts")
    func readSkipsBadLines() throws {
        let log = folder.log
        try log.append(TakeLogEntry(take: 1, status: .complete, sampleRate: 48_000, frames: 100))
        try folder.appendRaw("{\"take\":2,\"status\":\"complete\",\"note\":\"caf\u{E9}\"}\n")
        try (Data("{\"take\":1,\"note\":\"caf".utf8) + [0xE9] + Data("\"}\n".utf8)).appendTo(folder.logPath)   // Latin-1, line 3
        try folder.appendRaw("{\"take\":3,\"status\":\"someday\",\"frames\":5}\n")      // a first record: skipped
        try log.append(startRecord(4))
        try folder.appendRaw("{\"take\":4,\"status\":\"placement-uncertain\",\"frames\":96000,\"note\":\"newer\"}\n")
        let reading = try log.read()
        #expect(reading.entries.map(\.take) == [1, 2, 4])
        #expect(reading.skipped.map(\.line) == [3, 4, 6])
        #expect(reading.skipped.map(\.keptOtherKeys) == [false, false, true])
        try #require(reading.skipped.count == 3)
        #expect(reading.skipped[2].reason.hasPrefix("unknown status \"placement-uncertain\""))
        #expect(reading.skipped[2].description.hasSuffix("read without its status"))
        let four = try #require(reading.entries.last)
        #expect(four.frames == 96_000)
        #expect(four.note == "newer")
        #expect(four.startFrame == 1_000)
        // The strict reader still names the first bad line; recovery leaves take 4 alone (its
        // end may be the line it cannot read) and records nothing over it.
        #expect(throws: TakeLogError.unreadableLog(path: folder.logPath, line: 3, reason: reading.skipped[0].reason)) { try log.entries() }
        let lock = try SessionLock(folder: folder.path)
        defer { lock.release() }
        #expect(try log.recoverInterruptedTakes().isEmpty)
        #expect(try log.entry(4).frames == 96_000)
        #expect(log.nextTakeNumber() == 5)
    }

    @Test("a takes.jsonl that is a FIFO is refused at once, never waited on")
    func fifoLog() throws {
        #expect(mkfifo(folder.logPath, 0o644) == 0)
        let path = folder.logPath
        // Today's blocking open waits for a writer forever; one opened after a few seconds lets a
        // blocked test end (and fail) instead of hanging.
        let writerOpened = Locked(false)
        Thread {
            sleep(3)
            let descriptor = open(path, O_WRONLY | O_NONBLOCK)
            if descriptor >= 0 { writerOpened.withLock { $0 = true }; usleep(100_000); close(descriptor) }
        }.start()
        #expect(throws: TakeLogError.cannotReadLog(path: path, reason: "not a regular file")) { try folder.log.read() }
        #expect(!writerOpened.withLock { $0 }, "the read waited for a writer")
        #expect(throws: TakeLogError.cannotWriteLog(path: path, reason: "not a regular file")) { try folder.log.checkWritable() }
    }

    @Test("lines that are JSON but not records are errors, never traps", arguments: [
        "[1,2,3]", "{\"take\":\"seven\",\"status\":\"complete\"}", "{\"status\":\"complete\"}",
        "{\"take\":-4,\"status\":\"complete\"}", "{\"take\":99999999999999999999999,\"status\":\"complete\"}",
        "{\"take\":5,\"status\":\"complete\",\"frames\":-10}", "{\"take\":5,\"status\":\"complete\"} trailing",
        "{\"take\":6,\"note\":\"a note before any status\"}", "not json at all", "{\"take\":7,\"status\":\"complete\",\"start_frame\":5000000000}",
    ])
    func notRecords(line: String) throws {
        try folder.appendRaw(line + "\n" + "{\"take\":1,\"status\":\"complete\"}\n")
        #expect {
            _ = try folder.log.entries()
        } throws: { error in
            guard let error = error as? TakeLogError, case .unreadableLog(_, 1, let reason) = error else { return false }
            return !reason.isEmpty && !reason.contains("\n")
        }
    }

    @Test("a log with damaged bytes anywhere reads or fails with an error, never traps")
    func damagedBytes() throws {
        let log = folder.log
        try log.append(startRecord(1))
        try log.append(endRecord(1))
        try log.setNote(take: 1, "ok")
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: folder.logPath)))
        var generator = TakeRecoveryTests.SplitMix(seed: 11)
        for _ in 0..<500 {
            var damaged = original
            for _ in 0..<Int(generator.next() % 3 + 1) {
                damaged[Int(generator.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            try Data(damaged).write(to: URL(fileURLWithPath: folder.logPath))
            do {
                _ = try log.entries()
            } catch {
                #expect(!error.description.isEmpty)
            }
            _ = log.nextTakeNumber()
        }
    }

    // MARK: Reading again

    /// What `log` reads and numbers, against a reader that has never read the log.
    func expectReadsAsFresh(_ log: TakeLog, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let fresh = TakeLog(folder: folder.path)
        let again = Result { try log.read() }
        let first = Result { try fresh.read() }
        #expect(String(describing: again) == String(describing: first), "\(step)", sourceLocation: sourceLocation)
        #expect(log.nextTakeNumber() == fresh.nextTakeNumber(), "\(step)", sourceLocation: sourceLocation)
    }

    @Test("a log read again reads as a reader that never read it: appends, notes, marks, deletions, other processes' lines, torn and damaged ones")
    func readingAgainAfterAppends() throws {
        let log = folder.log
        expectReadsAsFresh(log, "no log")
        try log.append(startRecord(1))
        expectReadsAsFresh(log, "a start")
        try log.append(endRecord(1))
        try log.setNote(take: 1, "keeper")
        try log.setMark(take: 1, .circled)
        expectReadsAsFresh(log, "an end, a note and a mark")
        let full = String(decoding: TakeLogRecord(startRecord(2)).encoded(), as: UTF8.self)
        try folder.appendRaw(String(full.prefix(90)))          // another process, mid-append
        expectReadsAsFresh(log, "half a line")
        try folder.appendRaw(String(full.dropFirst(90)) + "\n") // its append finished
        #expect(try log.read().entries.map(\.take) == [1, 2])
        expectReadsAsFresh(log, "the line finished")
        try log.delete(take: 2)
        expectReadsAsFresh(log, "a deletion")
        try folder.appendRaw("{\"take\":3,\"status\":\"bogus\"")     // not a record, unfinished
        #expect(try log.read().skipped.isEmpty)
        try folder.appendRaw("}\n")                                  // finished: reported on its line
        #expect(try log.read().skipped.map(\.line) == [7])
        expectReadsAsFresh(log, "a damaged line")
        try folder.appendRaw("{\"take\":4,\"status\":\"reco")        // killed mid-append
        try log.append(startRecord(5))                            // starts on a new line
        try log.append(TakeLogEntry(take: 6, status: .complete, sampleRate: 48_000,
                                    files: [TakeLogFile(path: "old/take-006.wav", tracks: ["a"])]))
        try folder.touch("old/take-040.wav")
        #expect(log.nextTakeNumber() == 41)
        expectReadsAsFresh(log, "a torn line, more takes, a file in another folder")
    }

    @Test("readers on other threads while takes are appended each read a whole log, and a read after sees every take")
    func readingWhileAppending() throws {
        let log = folder.log
        try log.append(startRecord(1))
        let failures = Locked([String]())
        let records = (2...40).map { startRecord($0) }
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            if worker == 0 {
                for (take, record) in zip(2...40, records) {
                    do { try log.append(record) } catch { failures.withLock { $0.append("append \(take): \(error)") } }
                }
                return
            }
            for _ in 0..<60 {
                let takes = (try? log.read().entries.map(\.take)) ?? []
                if takes.isEmpty || takes != Array(1...takes.count) { failures.withLock { $0.append("read \(takes)") } }
                if log.nextTakeNumber() < takes.count + 1 { failures.withLock { $0.append("numbered below \(takes.count + 1)") } }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try log.read().entries.map(\.take) == Array(1...40))
        expectReadsAsFresh(log, "after")
    }

    @Test("a log changed other than by appending (edited in place, cut short, replaced, removed) is read again from its first line")
    func readingAgainAfterChanges() throws {
        let log = folder.log
        try log.append(startRecord(1))
        try log.append(endRecord(1))
        try log.append(startRecord(2))
        #expect(log.nextTakeNumber() == 3)
        // The same length, one take's files renumbered by hand.
        let edited = try folder.logText().replacingOccurrences(of: "take-001-", with: "take-007-")
        try Data(edited.utf8).write(to: URL(fileURLWithPath: folder.logPath))
        #expect(try log.entry(1).files.map(\.path) == ["take-007-Kick In.wav", "take-007-Snare.wav"])
        #expect(log.nextTakeNumber() == 8)
        expectReadsAsFresh(log, "edited in place")
        // Cut back to its first line.
        let first = try folder.logText().split(separator: "\n")[0]
        try Data((first + "\n").utf8).write(to: URL(fileURLWithPath: folder.logPath))
        #expect(try log.read().entries.map(\.status) == [.recording])
        expectReadsAsFresh(log, "cut short")
        // Replaced by another file with more in it (renamed over it, as an editor saves).
        let replacement = try TakeLogFolder("replacement")
        let elsewhere = replacement.log
        try elsewhere.append(startRecord(1))
        try elsewhere.append(startRecord(3))
        #expect(rename(replacement.logPath, folder.logPath) == 0)
        #expect(try log.read().entries.map(\.take) == [1, 3])
        expectReadsAsFresh(log, "replaced")
        // Removed.
        #expect(unlink(folder.logPath) == 0)
        #expect(try log.read().entries.isEmpty)
        #expect(log.nextTakeNumber() == 1)
    }

    @Test("a log read again after random appends, damage and cuts reads as a reader that never read it")
    func readingAgainAtRandom() throws {
        let log = folder.log
        var generator = TakeRecoveryTests.SplitMix(seed: 24)
        var take = 0
        for step in 0..<300 {
            switch generator.next() % 8 {
            case 0, 1:
                take += 1
                try log.append(startRecord(take))
            case 2:
                if take > 0 { try log.append(endRecord(take)) }
            case 3:
                // Refused for a take whose records the damage made unreadable.
                if take > 0 { try? log.setNote(take: Int(generator.next() % UInt64(take)) + 1, "note \(step)") }
            case 4:
                // Another process's append, stopped at any byte.
                let line = String(decoding: TakeLogRecord(startRecord(take + 1)).encoded(), as: UTF8.self) + "\n"
                try folder.appendRaw(String(line.prefix(Int(generator.next() % UInt64(line.count + 1)))))
            case 5:
                // A byte changed anywhere.
                var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder.logPath)))
                if !bytes.isEmpty {
                    bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                    try Data(bytes).write(to: URL(fileURLWithPath: folder.logPath))
                }
            case 6:
                // Cut anywhere.
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder.logPath)))
                try Data(bytes.prefix(Int(generator.next() % UInt64(bytes.count + 1))))
                    .write(to: URL(fileURLWithPath: folder.logPath))
            default:
                try folder.appendRaw("\n  \n")
            }
            if generator.next() % 2 == 0 { expectReadsAsFresh(log, "step \(step)") }
        }
        expectReadsAsFresh(log, "the end")
    }

    // MARK: Notes

    @Test("a note is set, replaced and cleared, and survives the take's end record")
    func notes() throws {
        let log = folder.log
        try log.append(startRecord(1))
        try log.setNote(take: 1, "count-in too fast")
        #expect(try log.entry(1).note == "count-in too fast")
        try log.append(endRecord(1))                      // the end record has no note: keeps it
        #expect(try log.entry(1).note == "count-in too fast")
        #expect(try log.entry(1).status == .framesLost)   // the note record did not touch the status
        try log.setNote(take: 1, "keeper\nsecond line")
        #expect(try log.entry(1).note == "keeper\nsecond line")
        try log.setNote(take: 1, "  ")
        #expect(try log.entry(1).note == nil)
        #expect(try folder.logText().hasSuffix("{\"take\":1,\"note\":null}\n"))
        #expect(throws: TakeLogError.noSuchTake(9)) { try log.setNote(take: 9, "nope") }
    }

    @Test("markers dropped while recording are logged at once, in order, and survive the end record")
    func markers() throws {
        let log = folder.log
        try log.append(startRecord(1))
        try log.addMarker(take: 1, TakeLogMarker(position: 48_000, sampleRate: 48_000))
        try log.addMarker(take: 1, TakeLogMarker(position: 120_000, sampleRate: 48_000))
        #expect(try folder.logText().hasSuffix("""
            {"take":1,"markers":[{"position":48000,"time":"0:00:01.000"},{"position":120000,"time":"0:00:02.500"}]}

            """))
        try log.append(endRecord(1))
        #expect(try log.entry(1).markers.map(\.position) == [48_000, 120_000])
        #expect(try log.entry(1).markers.last?.time == "0:00:02.500")
        #expect(throws: TakeLogError.noSuchTake(9)) { try log.addMarker(take: 9, TakeLogMarker(position: 0)) }
        var bad = try log.entry(1)
        bad.markers.append(TakeLogMarker(position: -1))
        #expect(throws: TakeLogError.self) { try log.append(bad) }
    }

    // MARK: Marks

    @Test("a mark is set, replaced and cleared, and survives the take's end record and notes")
    func marks() throws {
        let log = folder.log
        try log.append(startRecord(1))
        try log.setMark(take: 1, .falseStart)
        #expect(try folder.logText().hasSuffix("{\"take\":1,\"mark\":\"false-start\"}\n"))
        #expect(try log.entry(1).mark == .falseStart)
        try log.append(endRecord(1))                      // the end record has no mark: keeps it
        #expect(try log.entry(1).mark == .falseStart)
        #expect(try log.entry(1).status == .framesLost)   // the mark record did not touch the status
        try log.setNote(take: 1, "count-in too fast")     // nor does a note touch the mark
        try log.setMark(take: 1, .circled)
        #expect(try log.entry(1).mark == .circled)
        #expect(try log.entry(1).note == "count-in too fast")
        try log.setMark(take: 1, .noGood)
        #expect(try log.entry(1).mark == .noGood)
        try log.setMark(take: 1, nil)
        #expect(try log.entry(1).mark == nil)
        #expect(try log.entry(1).note == "count-in too fast")
        #expect(try folder.logText().hasSuffix("{\"take\":1,\"mark\":null}\n"))
        #expect(throws: TakeLogError.noSuchTake(9)) { try log.setMark(take: 9, .circled) }
    }

    @Test("every mark is spelled in the log as sessions/TAKES.md says, and reads back", arguments: [
        (TakeMark.circled, "circled"), (.falseStart, "false-start"), (.noGood, "no-good"),
    ])
    func markSpelling(mark: TakeMark, spelled: String) throws {
        let log = folder.log
        var entry = endRecord(1)
        entry.mark = mark
        entry.note = "keeper"
        try log.append(entry)
        let line = try folder.logText()
        // The mark comes just before the note, the last key.
        #expect(line.hasSuffix(",\"mark\":\"\(spelled)\",\"note\":\"keeper\"}\n"))
        #expect(try log.entry(1) == entry)
        #expect(try JSONDecoder().decode(TakeLogEntry.self, from: Data(line.utf8)) == entry)
    }

    @Test("a hand-written mark record merges; an unknown mark is an error naming the line and the marks")
    func handWrittenMarks() throws {
        try folder.appendRaw("{\"take\":1,\"status\":\"complete\"}\n{\"take\":1,\"mark\":\"circled\"}\n")
        #expect(try folder.log.entry(1).mark == .circled)
        try folder.appendRaw("{\"take\":1,\"mark\":\"great\"}\n")
        do {
            _ = try folder.log.entries()
            Issue.record("an unknown mark was read")
        } catch {
            guard case .unreadableLog(_, let line, let reason) = error else { throw error }
            #expect(line == 3)
            #expect(reason == "unknown mark (use \"circled\", \"false-start\", \"no-good\", or null)")
        }
    }

    // MARK: Deleting

    @Test("deleting a take removes its files (those that exist) and no other take's")
    func deleteRemovesFiles() throws {
        let log = folder.log
        try log.append(startRecord(1))
        try log.append(endRecord(1))
        try log.append(startRecord(2))
        try folder.touch("take-001-Kick In.wav")           // take-001-Snare.wav is already gone
        try folder.touch("take-002-Kick In.wav")
        try folder.touch("take-002-Snare.wav")
        try folder.touch("take-001-Kick In.wav.bak")       // not listed: not the log's to remove

        try log.delete(take: 1)
        #expect(!folder.exists("take-001-Kick In.wav"))
        #expect(folder.exists("take-002-Kick In.wav"))
        #expect(folder.exists("take-002-Snare.wav"))
        #expect(folder.exists("take-001-Kick In.wav.bak"))
        let deleted = try log.entry(1)
        #expect(deleted.status == .deleted)
        #expect(deleted.frames == 96_000)                  // still says what was deleted
        #expect(try folder.logText().hasSuffix("{\"take\":1,\"status\":\"deleted\"}\n"))

        try log.discard(take: 2)
        #expect(!folder.exists("take-002-Kick In.wav"))
        #expect(try log.entry(2).status == .discarded)
        #expect(throws: TakeLogError.noSuchTake(3)) { try log.delete(take: 3) }
        #expect(throws: TakeLogError.noSuchTake(3)) { try log.discard(take: 3) }
    }

    @Test("a file outside the folder, or another take's, stops a deletion with nothing removed")
    func deleteNeverTouchesAnotherTake() throws {
        let log = folder.log
        let outside = try TakeLogFolder("outside")
        try outside.touch("take-005.wav")
        for (take, paths) in [(5, ["take-005-a.wav", "../\((outside.path as NSString).lastPathComponent)/take-005.wav"]),
                              (6, ["take-006-a.wav", outside.file("take-005.wav")]),
                              (7, ["take-007-a.wav", "take-008.wav"]),
                              (9, ["take-009-a.wav", "shared.wav"]),
                              (10, ["shared.wav"])] {
            try log.append(TakeLogEntry(take: take, status: .complete, sampleRate: 48_000,
                                        files: paths.map { TakeLogFile(path: $0, tracks: ["a"]) }))
            for path in paths where !path.contains("/") { try folder.touch(path) }
        }
        try log.append(TakeLogEntry(take: 8, status: .complete, sampleRate: 48_000,
                                    files: [TakeLogFile(path: "take-008.wav", tracks: ["a"])]))

        #expect(throws: TakeLogError.fileOutsideFolder(take: 5, path: "../\((outside.path as NSString).lastPathComponent)/take-005.wav")) {
            try log.delete(take: 5)
        }
        #expect(throws: TakeLogError.fileOutsideFolder(take: 6, path: outside.file("take-005.wav"))) { try log.delete(take: 6) }
        #expect(throws: TakeLogError.fileOfAnotherTake(take: 7, path: "take-008.wav", otherTake: 8)) { try log.delete(take: 7) }
        #expect(throws: TakeLogError.fileOfAnotherTake(take: 9, path: "shared.wav", otherTake: 10)) { try log.delete(take: 9) }
        for name in ["take-005-a.wav", "take-006-a.wav", "take-007-a.wav", "take-008.wav", "take-009-a.wav", "shared.wav"] {
            #expect(folder.exists(name), "\(name) was removed")
        }
        #expect(outside.exists("take-005.wav"))
        #expect(try log.entries().allSatisfy { $0.status == .complete })

        // Shared both ways: neither take may take the other's audio with it.
        #expect(throws: TakeLogError.fileOfAnotherTake(take: 10, path: "shared.wav", otherTake: 9)) { try log.delete(take: 10) }
        #expect(folder.exists("shared.wav"))
    }

    @Test("a folder or a file in the session folder that is a symlink leading out stops a deletion with nothing removed")
    func deleteNeverFollowsASymlinkOut() throws {
        let log = folder.log
        let outside = try TakeLogFolder("outside")
        defer { try? FileManager.default.removeItem(atPath: outside.path) }
        try outside.touch("take-001-a.wav")
        try outside.touch("take-002-a.wav")
        try FileManager.default.createSymbolicLink(atPath: folder.file("sub"), withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: folder.file("take-002-a.wav"), withDestinationPath: outside.file("take-002-a.wav"))
        try folder.touch("take-003-a.wav")
        try FileManager.default.createDirectory(atPath: folder.file("inner"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: folder.file("inside"), withDestinationPath: folder.file("inner"))
        try folder.touch("inner/take-004-a.wav")
        for (take, path) in [(1, "sub/take-001-a.wav"), (2, "take-002-a.wav"), (3, "./take-003-a.wav"), (4, "inside/take-004-a.wav")] {
            try log.append(TakeLogEntry(take: take, status: .complete, sampleRate: 48_000, files: [TakeLogFile(path: path, tracks: ["a"])]))
        }
        #expect(throws: TakeLogError.fileOutsideFolder(take: 1, path: "sub/take-001-a.wav")) { try log.delete(take: 1) }
        #expect(throws: TakeLogError.fileOutsideFolder(take: 2, path: "take-002-a.wav")) { try log.delete(take: 2) }
        #expect(outside.exists("take-001-a.wav"))
        #expect(outside.exists("take-002-a.wav"))
        #expect(try log.entry(1).status == .complete)
        #expect(try log.entry(2).status == .complete)
        // A symlink that stays inside the folder is the folder's own business.
        try log.delete(take: 3)
        try log.delete(take: 4)
        #expect(!folder.exists("take-003-a.wav"))
        #expect(!folder.exists("inner/take-004-a.wav"))
    }

    @Test("a .jcap.lock that is a symlink is refused, and its target left as it was")
    func lockNeverFollowsASymlink() throws {
        let outside = try TakeLogFolder("outside")
        defer { try? FileManager.default.removeItem(atPath: outside.path) }
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: outside.file("precious")))
        try FileManager.default.createSymbolicLink(atPath: folder.file(SessionLock.fileName), withDestinationPath: outside.file("precious"))
        #expect(throws: TakeLogError.lockIsSymlink(path: folder.file(SessionLock.fileName))) {
            _ = try SessionLock(folder: folder.path)
        }
        #expect(!SessionLock.isHeld(folder: folder.path))
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside.file("precious"))) == Data("precious\n".utf8))
    }

    @Test("a file that cannot be removed is an error, and the take is not marked deleted")
    func removalFailure() throws {
        let log = folder.log
        try log.append(TakeLogEntry(take: 1, status: .complete, sampleRate: 48_000,
                                    files: [TakeLogFile(path: "take-001.wav", tracks: ["a"])]))
        // A directory where the file should be: unlink(2) refuses it (EISDIR), even for root.
        try FileManager.default.createDirectory(atPath: folder.file("take-001.wav"), withIntermediateDirectories: false)
        #expect {
            try log.delete(take: 1)
        } throws: { error in
            guard let error = error as? TakeLogError, case .cannotRemove(let path, _) = error else { return false }
            return path == folder.file("take-001.wav")
        }
        #expect(try log.entry(1).status == .complete)
    }

    // MARK: Numbering

    @Test("take numbers never repeat: the log, deleted takes, torn lines, files in the folder and files moved out")
    func numbering() throws {
        let log = folder.log
        #expect(log.nextTakeNumber() == 1)
        try folder.touch("take-003.wav")                    // recorded before the log existed
        #expect(log.nextTakeNumber() == 4)
        try log.append(startRecord(4))
        #expect(log.nextTakeNumber() == 5)
        try log.append(startRecord(5))
        try log.delete(take: 5)                             // deleted: the record keeps its number
        #expect(log.nextTakeNumber() == 6)
        try folder.touch("take-009-Kick In.wav")            // copied in by hand
        #expect(log.nextTakeNumber() == 10)
        // Moved out by hand: the log still names it.
        try log.append(TakeLogEntry(take: 12, status: .complete, sampleRate: 48_000,
                                    files: [TakeLogFile(path: "take-012.wav", tracks: ["a"])]))
        #expect(!folder.exists("take-012.wav"))
        #expect(log.nextTakeNumber() == 13)
        // A start record cut short still names its take.
        try folder.appendRaw("{\"take\":20,\"status\":\"reco")
        #expect(log.nextTakeNumber() == 21)
        // A file the log lists under another number, in a subfolder with more takes.
        try folder.touch("old/take-030.wav")
        #expect(log.nextTakeNumber() == 21)                 // not listed, not in the folder itself
        try log.append(TakeLogEntry(take: 22, status: .complete, sampleRate: 48_000,
                                    files: [TakeLogFile(path: "old/take-022.wav", tracks: ["a"])]))
        #expect(log.nextTakeNumber() == 31)                 // the folder of a listed file counts
        try folder.touch("take-12b.wav")                    // not a take's name
        try folder.touch("take-99999999999999999999999.wav") // no number an Int holds
        #expect(log.nextTakeNumber() == 31)
    }

    // MARK: The session lock

    @Test("a second lock on a session folder is refused with the holder's PID, until released")
    func lockRefusal() throws {
        let first = try SessionLock(folder: folder.path)
        #expect(SessionLock.isHeld(folder: folder.path))
        #expect(throws: TakeLogError.sessionInUse(folder: folder.path, pid: getpid())) {
            _ = try SessionLock(folder: folder.path)
        }
        do {
            _ = try SessionLock(folder: folder.path)
        } catch {
            #expect(error.description == "session folder \(folder.path) is in use by jcap (PID \(getpid()))")
        }
        #expect(SessionLock.isHeld(folder: folder.path))   // the refused attempt changed nothing
        first.release()
        #expect(!SessionLock.isHeld(folder: folder.path))
        let second = try SessionLock(folder: folder.path)
        #expect(SessionLock.isHeld(folder: folder.path + "/."))  // the same folder, spelled another way
        second.release()
    }

    @Test("another process cannot take the lock while it is held (flock(1) as the other process)")
    func lockAcrossProcesses() throws {
        let flock = "/usr/bin/flock"
        guard FileManager.default.isExecutableFile(atPath: flock) else { return }
        func otherProcessGetsLock() throws -> Bool {
            try ChildProcess.run(flock, ["--nonblock", folder.file(SessionLock.fileName), "true"]).status == 0
        }
        let lock = try SessionLock(folder: folder.path)
        #expect(try !otherProcessGetsLock())
        lock.release()
        #expect(try otherProcessGetsLock())
    }

    @Test("recovery refuses to run without the session lock")
    func recoveryNeedsLock() throws {
        try folder.appendStartRecordOfKilledProcess(startRecord(1))
        #expect(throws: TakeLogError.sessionNotLocked(folder: folder.path)) {
            _ = try folder.log.recoverInterruptedTakes()
        }
        #expect(try folder.log.entry(1).status == .recording)
    }

    // MARK: Statuses and times

    @Test("a take's outcome gives its status; a full disk is told apart from other write failures")
    func statusFromOutcome() {
        let full = CaptureError.writeFailed(path: "x.wav", reason: "\(String(cString: strerror(ENOSPC))) (libsndfile)")
        let other = CaptureError.writeFailed(path: "x.wav", reason: "\(String(cString: strerror(EIO))) (libsndfile)")
        #expect(TakeStatus(.complete) == .complete)
        #expect(TakeStatus(.lostFrames) == .framesLost)
        #expect(TakeStatus(.serverShutDown) == .serverShutdown)
        #expect(TakeStatus(.writeFailed(full)) == .diskFull)
        #expect(TakeStatus(.writeFailed(other)) == .writeFailed)
        #expect(TakeStatus(.sampleRateChanged(from: 48_000, to: 44_100)) == .interrupted)
        #expect(TakeStatus(.cancelled) == .discarded)
    }

    @Test("start times are UTC with exactly six fractional digits, and read back")
    func startTimes() throws {
        var utc = tm()
        utc.tm_year = 2026 - 1900
        utc.tm_mon = 10
        utc.tm_mday = 22
        utc.tm_hour = 14
        utc.tm_min = 3
        utc.tm_sec = 7
        let seconds = timegm(&utc)
        #expect(TakeLogTime.string(from: timespec(tv_sec: seconds, tv_nsec: 123_456_789)) == "2026-11-22T14:03:07.123456Z")
        #expect(TakeLogTime.string(from: timespec(tv_sec: seconds, tv_nsec: 0)) == "2026-11-22T14:03:07.000000Z")
        let date = try #require(TakeLogTime.date(from: "2026-11-22T14:03:07.123456Z"))
        #expect(abs(date.timeIntervalSince1970 - (Double(seconds) + 0.123456)) < 1e-6)
        #expect(TakeLogTime.string(from: date) == "2026-11-22T14:03:07.123456Z")
        #expect(TakeLogTime.date(from: "2026-11-22T14:03:07Z") != nil)
        for bad in ["", "2026-11-22", "2026-13-22T14:03:07.1Z", "2026-11-22T14:03:07.123456", "2026-11-22 14:03:07Z"] {
            #expect(TakeLogTime.date(from: bad) == nil, "\(bad)")
        }
        let now = TakeLogTime.now()
        #expect(now.count == 27 && now.hasSuffix("Z"))
    }
}

extension Data {
    /// Appends these bytes to the file at `path`.
    func appendTo(_ path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: self)
    }
}
