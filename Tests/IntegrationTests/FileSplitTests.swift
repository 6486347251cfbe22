import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// `--split`: a take written as a series of files, a new one on each wall-clock boundary, cut on
/// the exact frame; the files one after another are the continuous recording. Checked sample by
/// sample against the test signal, which encodes each frame's JACK frame time.
final class FileSplitTests: JackTestCase {
    static let second: Int64 = 1_000_000

    /// A moment `before` seconds before a 2-second boundary at least `ahead` seconds from now, on a
    /// millisecond: the boundary and the start as `--at` takes it (local time of day).
    func startBeforeABoundary(ahead: Double = 1.6, before: Double = 0.5) throws -> (boundary: Int64, start: Int64, at: String) {
        let interval = try SplitInterval(parsing: "2s")
        let now = WallClockTime.nowMicrosecondsSinceEpoch()
        let boundary = interval.nextBoundary(after: now + Int64((ahead + before) * 1_000_000))
        let start = boundary - Int64(before * 1_000_000)
        var seconds = time_t(start / Self.second)
        var local = tm()
        localtime_r(&seconds, &local)
        let at = String(format: "%02d:%02d:%02d.%03d", local.tm_hour, local.tm_min, local.tm_sec, Int(start % Self.second) / 1_000)
        return (boundary, start, at)
    }

    /// A split take checked against what jcap reported (its `--meter json` summary): its files are
    /// `names`, in order, each beginning at the take position where the last one ended, and every
    /// sample of them is accounted for (`TakeVerification`). Returns each file's first JACK frame
    /// and its frames.
    func checkSplit(_ account: TakeAccount, names: [String], file: StaticString = #filePath,
                    line: UInt = #line) throws -> [(first: UInt32, frames: Int64)] {
        XCTAssertEqual(account.files.map(\.path), names.map(path), file: file, line: line)
        assertAccountedFor(account, file: file, line: line)
        var files: [(first: UInt32, frames: Int64)] = []
        var position: Int64 = 0
        for each in account.files {
            let frames = try SoundFile.open(readingFrom: each.path).frames
            XCTAssertEqual(each.firstPosition, position, "\(each.path) begins where the last file ended", file: file, line: line)
            files.append((account.frameTime(atPosition: each.firstPosition), frames))
            position += frames
        }
        return files
    }

    /// Frames from `earlier` to `later` (both modulo 2^22), negative when `later` is before.
    func signedSignalDistance(from earlier: Int, to later: Int) -> Int {
        let distance = signalDistance(from: earlier, to: later)
        return distance > TestSignal.timeModulus / 2 ? distance - TestSignal.timeModulus : distance
    }

    /// The frame whose time is a wall-clock moment, by the observer's reading of JACK's clock now.
    func frameNear(wallClock microseconds: Int64) -> UInt32 {
        let jack = Int64(JackClient.currentTimeMicroseconds)
        let wall = WallClockTime.nowMicrosecondsSinceEpoch()
        return observer.frameTime(atMicroseconds: UInt64(jack + microseconds - wall))
    }

    func testThreeSplitsAtTwoSecondsJoinWithoutAGap() throws {
        let moment = try startBeforeABoundary()
        let jcap = try launchJcap(signalPorts(2) + ["--split", "2s", "--at", moment.at, "--for", "5s", "--meter", "json", "-v"])
        // The server's frame at the start and at each boundary, read from its clock just after
        // each moment, as jcap reads it then: on a loaded host the sample clock of a dummy
        // server falls behind the wall clock (measured under tools/steal: 4,419 frames over
        // 4.5 s, with no xrun), so a reading made before the take would not be where the cut is.
        let instants = [moment.start] + (0..<3).map { moment.boundary + Int64($0) * 2 * Self.second }
        var observed: [UInt32] = []
        for instant in instants {
            let wait = instant + 20_000 - WallClockTime.nowMicrosecondsSinceEpoch()
            if wait > 0 { usleep(UInt32(wait)) }
            observed.append(frameNear(wallClock: instant))
        }
        let expectedFrames = Array(observed.dropFirst())
        let run = (status: try jcap.wait(), errors: jcap.errorOutput)
        let account = try summaryAccount(jcap.output)
        XCTAssertEqual(run.status, exitStatus(reporting: account), run.errors)
        // Started half a second before a boundary, for 5 s: three boundaries, four files, each
        // named for its start (the first for the take's, the others for their boundary's).
        let starts = [moment.start] + (0..<3).map { moment.boundary + Int64($0) * 2 * Self.second }
        let names = starts.map { "take-001-" + SplitNaming.timeStamp(microsecondsSinceEpoch: $0) + ".wav" }
        let found = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".wav") }.sorted()
        XCTAssertEqual(found, names)
        let reports = try checkSplit(account, names: names)
        XCTAssertEqual(reports.reduce(0) { $0 + $1.frames }, 240_000, "the take's frames, all of them, once")
        // Half a second, two seconds, two seconds, and the rest, by the server's clock: the sample
        // clock may run a few parts per million off the wall clock the boundaries follow (or,
        // on a loaded host, as far off as the readings above show it ran), and each cut rests
        // on the server's estimate of that clock, which a loaded host moves by a fraction of a
        // millisecond (measured under tools/steal: 5 to 14 frames). An xrun jumps that
        // estimate by the frames it cost, so a cut after one may move by as much as jcap
        // reported lost, late or uncertain (measured: 73 to 1,302 frames with 2,048 to 4,096).
        let disturbance = (account.lostSpans + account.lateCopySpans + account.uncertainSpans).reduce(0) { $0 + Int($1.frames) }
        for (index, (report, nominal)) in zip(reports, [24_000, 96_000, 96_000] as [Int64]).enumerated() {
            let serverFrames = Int64(FrameTime.distance(from: observed[index], to: observed[index + 1]))
            let drift = abs(serverFrames - nominal)
            XCTAssertLessThanOrEqual(abs(report.frames - nominal), nominal / 10_000 + 48 + drift + Int64(disturbance),
                                     "\(report.frames) frames, about \(nominal) (the server's clock: \(serverFrames)); \(account)")
        }
        // Each cut is on the frame of its boundary (the observer's conversion is within a period).
        for (report, expected) in zip(reports.dropFirst(), expectedFrames) {
            XCTAssertLessThanOrEqual(abs(FrameTime.distance(from: expected, to: report.first)), server.period + disturbance,
                                     "a file begins near JACK frame \(expected); \(account)")
        }
        // A line for each file as it closes, with its JACK frames; then the whole take.
        let lines = run.errors.split(separator: "\n").map(String.init)
        for (name, report) in zip(names, reports) {
            let line = try XCTUnwrap(lines.first { $0.hasPrefix("jcap: wrote \(name): ") && $0.contains("(\(report.frames) frames)") }, run.errors)
            let jackFirst = try XCTUnwrap(number(after: "JACK frames ", in: line), line)
            XCTAssertEqual(UInt32(jackFirst), report.first, line)
        }
        XCTAssertTrue(run.errors.contains("jcap: recorded 4 files: 00:00:05.000 (240000 frames)"), run.errors)
        XCTAssertTrue(run.errors.contains("a new file on every 2s boundary of the clock"), run.errors)
    }

    /// Two recorders split on the same frames, and a third told to start at one of the boundaries
    /// (`--at`) starts on the frame the others cut at: one rule for both (`ClockStart`,
    /// `ClockSplit`), decided in the cycle the moment falls in from the times every client reads.
    func testTwoRecordersSplitOnTheSameFramesAndAStartAtABoundaryAgrees() throws {
        let boundary = try SplitInterval(parsing: "2s").nextBoundary(after: WallClockTime.nowMicrosecondsSinceEpoch() + 1_800_000)
        var seconds = time_t(boundary / Self.second)
        var local = tm()
        localtime_r(&seconds, &local)
        let at = String(format: "%02d:%02d:%02d", local.tm_hour, local.tm_min, local.tm_sec)
        let first = try launchJcap(signalPorts(2) + ["--split", "2s", "--for", "6s", "-o", "a.wav", "--meter", "json"])
        usleep(700_000)
        let second = try launchJcap(signalPorts(2) + ["--split", "2s", "--for", "4.5s", "-o", "b.wav", "--meter", "json"])
        let third = try launchJcap(signalPorts(2) + ["--at", at, "--for", "1000f", "-o", "c.wav", "--meter", "json"])
        // Server xruns around each boundary from the first the three can share on: one there can
        // skip a recorder's callback in the cycle the boundary falls in, and it cuts a cycle later.
        let boundaries = (0..<3).map { boundary + Int64($0) * 2 * Self.second }
        var xruns: [String: Int?] = [:]
        for instant in boundaries { xruns[SplitNaming.timeStamp(microsecondsSinceEpoch: instant)] = serverXruns(aroundMoment: instant) }
        var accounts: [TakeAccount] = []
        for recorder in [first, second, third] {
            let status = try recorder.wait(timeout: 30)
            let account = try summaryAccount(recorder.output)
            XCTAssertEqual(status, exitStatus(reporting: account), recorder.errorOutput)
            // Every sample accounted for, and each file beginning where the last one ended.
            _ = try checkSplit(account, names: account.files.map { ($0.path as NSString).lastPathComponent })
            accounts.append(account)
        }
        // Each file's first JACK frame, by the stamp in its name (a boundary's, after the first).
        func cuts(_ account: TakeAccount, prefix: String) -> [String: UInt32] {
            Dictionary(uniqueKeysWithValues: account.files.dropFirst().map { file in
                (String((file.path as NSString).lastPathComponent.dropFirst(prefix.count).dropLast(4)), account.frameTime(atPosition: file.firstPosition))
            })
        }
        let cutsA = cuts(accounts[0], prefix: "a-"), cutsB = cuts(accounts[1], prefix: "b-")
        XCTAssertGreaterThanOrEqual(cutsA.count, 2, "a: \(accounts[0])")
        XCTAssertGreaterThanOrEqual(cutsB.count, 2, "b: \(accounts[1])")
        // On the same frame at every boundary both crossed, unless the server had an xrun around it
        // or a recorder reported trouble there: then a period and what was reported apart at most.
        func allowance(_ stamp: String, near frame: UInt32) -> Int {
            let reported = accounts.flatMap { account in
                (account.lostSpans + account.lateCopySpans + account.uncertainSpans).filter { span in
                    abs(FrameTime.distance(from: account.frameTime(atPosition: span.position), to: frame)) < 2 * server.period
                }
            }.reduce(0) { $0 + Int($1.frames) }
            return xruns[stamp, default: nil] == 0 && reported == 0 ? 0 : server.period + reported
        }
        for (stamp, cut) in cutsB {
            let other = try XCTUnwrap(cutsA[stamp], "a cut at every boundary b cut at: \(cutsA), \(cutsB)")
            XCTAssertLessThanOrEqual(abs(FrameTime.distance(from: other, to: cut)), allowance(stamp, near: cut),
                                     "b's file from frame \(cut) and a's from \(other), at \(stamp); xruns around it: \(String(describing: xruns[stamp]))")
        }
        // A start at a boundary is where a cut there.
        let stamp = SplitNaming.timeStamp(microsecondsSinceEpoch: boundary)
        let cutThere = try XCTUnwrap(cutsA[stamp], "a cut at \(stamp): \(cutsA)")
        XCTAssertLessThanOrEqual(abs(FrameTime.distance(from: cutThere, to: accounts[2].startFrame)), allowance(stamp, near: cutThere),
                                 "a start at a boundary, frame \(accounts[2].startFrame), is where a cut there, \(cutThere)")
    }

    func testASessionSplitsIntoTakesThatJoinWithoutAGap() throws {
        let session = path("split.toml")
        try """
            [session]
            name = "split"
            format = "wav"
            bit_depth = "float"

            [[track]]
            name = "Kick"
            source = "sig:out_1"

            [[track]]
            name = "OH L"
            source = "sig:out_2"
            group = "overheads"

            [[track]]
            name = "OH R"
            source = "sig:out_3"
            group = "overheads"
            """.write(toFile: session, atomically: true, encoding: .utf8)
        let moment = try startBeforeABoundary()
        let run = try runJcap(["session", session, "--split", "2s", "--at", moment.at, "--for", "5s", "--meter", "none"])
        let entries = try TakeLog(folder: path("split")).entries()
        XCTAssertEqual(entries.map(\.take), [1, 2, 3, 4])
        let accounts = try entries.map { try takeLogAccount(folder: path("split"), take: $0.take) }
        XCTAssertEqual(entries.map(\.status), accounts.map(takeStatus(reporting:)), "complete unless it reported trouble")
        XCTAssertEqual(run.status, exitStatus(reportingAll: accounts), run.errors)
        XCTAssertEqual(entries.reduce(0) { $0 + $1.frames }, 240_000)
        let starts = [moment.start] + (0..<3).map { moment.boundary + Int64($0) * 2 * Self.second }
        for (index, entry) in entries.enumerated() {
            let stamp = SplitNaming.timeStamp(microsecondsSinceEpoch: starts[index])
            let number = String(format: "%03d", entry.take)
            XCTAssertEqual(entry.files.map(\.path), ["take-\(number)-\(stamp)-Kick.wav", "take-\(number)-\(stamp)-overheads.wav"])
            XCTAssertEqual(entry.files.map(\.tracks), [["Kick"], ["OH L", "OH R"]])
            XCTAssertEqual(entry.files.map(\.frames), [entry.frames, entry.frames])
            if index > 0 {
                let previous = entries[index - 1]
                XCTAssertEqual(entry.startFrame, FrameTime.advance(try XCTUnwrap(previous.startFrame), by: Int(previous.frames)),
                               "take \(entry.take) begins on the frame after take \(previous.take) ended")
                // Logged as starting on its boundary: the first frame at or after it is less than
                // a frame later. The log's time is the server's estimate of that frame's, read
                // through two clocks as the writer starts the take, which a loaded host moves
                // (measured under tools/steal: 1 to 8 ms).
                let logged = try XCTUnwrap(entry.startTime.flatMap(TakeLogTime.date(from:))).timeIntervalSince1970
                XCTAssertEqual(logged, Double(starts[index]) / 1e6, accuracy: 0.020, "take \(entry.take) at \(entry.startTime ?? "")")
            }
        }
        // Every sample of every take's files, from the take's logged start frame on (which the
        // loop above proved follows the last take's end): in place, or in a span its entry reports.
        for account in accounts {
            XCTAssertEqual(account.files.map(\.signalChannels), [[0], [1, 2]])
            assertAccountedFor(account)
        }
    }

    func testBadSplitsAreRefusedInOneLineAndWriteNothing() throws {
        for value in ["0s", "x", "48000f", "1.5s", "25h", ""] {
            let run = try runJcap(signalPorts(1) + ["--split", value, "--for", "1s"])
            XCTAssertEqual(run.status, ExitStatus.badTime.rawValue, "--split '\(value)': \(run.errors)")
            let lines = run.errors.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, run.errors)
            XCTAssertTrue(lines.first?.contains("--split") ?? false, run.errors)
        }
        let session = path("bad.toml")
        try "[session]\nname = \"bad\"\n\n[[track]]\nname = \"A\"\nsource = \"sig:out_1\"\n"
            .write(toFile: session, atomically: true, encoding: .utf8)
        let badSplit = try runJcap(["session", session, "--split", "0s"])
        XCTAssertEqual(badSplit.status, ExitStatus.badTime.rawValue, badSplit.errors)
        XCTAssertEqual(badSplit.errors.split(separator: "\n").count, 1, badSplit.errors)
        let withTakes = try runJcap(["session", session, "--split", "2s", "--for", "4s", "--takes", "2"])
        XCTAssertEqual(withTakes.status, ExitStatus.usage.rawValue, withTakes.errors)
        XCTAssertEqual(withTakes.errors.split(separator: "\n").count, 1, withTakes.errors)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), ["bad.toml"], "nothing was created")
    }

    /// A split take's first file is named for its start; a name that is taken (a file already
    /// there) gets -2 and is never replaced, even with --overwrite.
    func testATakenNameIsNeverReplaced() throws {
        let moment = try startBeforeABoundary(before: 1.0)
        let taken = "show-" + SplitNaming.timeStamp(microsecondsSinceEpoch: moment.boundary) + ".wav"
        try Data("keep".utf8).write(to: URL(fileURLWithPath: path(taken)))
        let jcap = try launchJcap(signalPorts(1) + ["--split", "2s", "--at", moment.at, "--for", "1.5s", "-o", "show.wav",
                                                    "--overwrite", "--meter", "json"])
        let run = (status: try jcap.wait(), errors: jcap.errorOutput)
        let account = try summaryAccount(jcap.output)
        XCTAssertEqual(run.status, exitStatus(reporting: account), run.errors)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path(taken))), Data("keep".utf8))
        let second = taken.replacingOccurrences(of: ".wav", with: "-2.wav")
        let first = "show-" + SplitNaming.timeStamp(microsecondsSinceEpoch: moment.start) + ".wav"
        let reports = try checkSplit(account, names: [first, second])
        XCTAssertEqual(reports.reduce(0) { $0 + $1.frames }, 72_000)
    }
}
