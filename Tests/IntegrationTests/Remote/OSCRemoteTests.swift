import Foundation
import XCTest
@testable import JackCapture

/// `jcap session --osc` driven by liblo's own tools against the private server and the test
/// signal: `oscsend` sends each message (from a port of its own, gone once it exits), `oscdump`
/// listens on a port that `/jcap/subscribe i:port` names, and so gets the replies, the state
/// changes and the meters. A take made over OSC is checked as the console's is: the log and
/// every sample of its files.
final class OSCRemoteTests: JackTestCase {
    /// Tracks A, B and C on `sig:out_1..3`, C disarmed.
    func writeSession(_ name: String, extra: String = "") throws -> String {
        var text = "[session]\nname = \"\(name)\"\nformat = \"wav\"\nbit_depth = \"float\"\n"
        for (index, track) in ["A", "B", "C"].enumerated() {
            text += "\n[[track]]\nname = \"\(track)\"\nsource = \"sig:out_\(index + 1)\"\n" + (track == "C" ? "arm = false\n" : "")
        }
        let file = path("\(name).toml")
        try (text + extra).write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// `jcap session FILE --osc 0` (any free port) and the port it listens on, once it says so.
    func openSession(_ file: String, keys: FileHandle = FileHandle.nullDevice) throws -> (jcap: Subprocess, port: Int) {
        let jcap = try Subprocess(try Executables.built("jcap"), ["session", file, "--osc", "0", "--meter", "none"],
                                  server: server.name, directory: directory, standardInput: keys)
        var port: Int64?
        try Self.waitFor("jcap's OSC port") {
            port = number(after: "jcap: OSC on UDP port ", in: jcap.errorOutput)
            return port != nil || !jcap.process.isRunning
        }
        let found = try XCTUnwrap(port, jcap.errorOutput)
        try Self.waitFor("the session ready") { jcap.errorOutput.contains("jcap: r records a take") || !jcap.process.isRunning }
        return (jcap, Int(found))
    }

    /// Sends one message with liblo's `oscsend` (`types` as oscsend takes them, one value each).
    func send(_ port: Int, _ path: String, _ types: String = "", _ values: Any...) throws {
        try send(port, path, types, values)
    }

    func send(_ port: Int, _ path: String, _ types: String, _ values: [Any]) throws {
        let arguments = ["127.0.0.1", "\(port)", path] + (types.isEmpty ? [] : [types]) + values.map { "\($0)" }
        let oscsend = try Subprocess(URL(fileURLWithPath: "/usr/bin/oscsend"), arguments, server: nil, directory: directory)
        XCTAssertEqual(try oscsend.wait(timeout: 10), 0, "oscsend \(arguments): \(oscsend.errorOutput)")
    }

    /// Raw bytes to the port, as bash's /dev/udp sends them: not OSC a client of ours would make.
    func sendRaw(_ port: Int, _ printfFormat: String, times: Int = 1) throws {
        let script = "for i in $(seq \(times)); do printf '\(printfFormat)' > /dev/udp/127.0.0.1/\(port); done"
        let bash = try Subprocess(URL(fileURLWithPath: "/bin/bash"), ["-c", script], server: nil, directory: directory)
        XCTAssertEqual(try bash.wait(timeout: 30), 0, bash.errorOutput)
    }

    // MARK: A take from OSC is the console's take

    /// Keys make take 1, OSC arms C, disarms A and makes take 2 (paused once, a marker, marked
    /// and noted), then take 3, which `/jcap/discard i:3` discards (a bare or wrong-numbered
    /// discard does nothing); the subscriber hears every take start and end. Both takes are
    /// what the log says, every sample in place, each with the files of its armed tracks.
    func testATakeFromOSCIsTheTakeTheKeysMake() throws {
        let file = try writeSession("remote")
        let keys = Pipe()
        let (jcap, port) = try openSession(file, keys: keys.fileHandleForReading)
        let dump = try OSCDump()
        var mark = dump.count
        try send(port, "/jcap/subscribe", "if", dump.port, 5.0)
        try dump.expect("/jcap/subscribed", after: mark) { $0 == ["\(dump.port)", "5.000000"] }
        try dump.expect("/jcap/state", after: mark) { $0.first == "ready" && $0[3] == "1" && $0.last == "remote" }
        try dump.expect("/jcap/track", after: mark) { $0 == ["3", "C", "0", "0", ""] }

        // Take 1 from the keys (a pipe: s stops at once); OSC hears of it.
        mark = dump.count
        keys.fileHandleForWriting.write(Data("r".utf8))
        try dump.expect("/jcap/take", after: mark) { $0 == ["1", "started"] }
        usleep(600_000)
        keys.fileHandleForWriting.write(Data("s".utf8))
        try dump.expect("/jcap/take", after: mark) { $0.count == 4 && $0[0] == "1" && $0[1] == "finished" }

        // Take 2 from OSC: C armed, A disarmed.
        mark = dump.count
        try send(port, "/jcap/arm", "si", "C", 1)
        try send(port, "/jcap/arm", "si", "A", 0)
        try dump.expect("/jcap/track", after: mark) { $0 == ["3", "C", "1", "0", ""] }
        try dump.expect("/jcap/track", after: mark) { $0 == ["1", "A", "0", "0", ""] }
        try send(port, "/jcap/record")
        try dump.expect("/jcap/take", after: mark) { $0 == ["2", "started"] }
        try dump.expect("/jcap/state", after: mark) { $0.first == "recording" && $0[1] == "2" }
        usleep(400_000)
        try send(port, "/jcap/pause")
        try dump.expect("/jcap/state", after: mark) { $0.first == "paused" }
        usleep(200_000)
        let paused = dump.count
        try send(port, "/jcap/pause", "i", 0)
        try dump.expect("/jcap/state", after: paused) { $0.first == "recording" }
        try send(port, "/jcap/marker")
        try dump.expect("/jcap/take", after: mark) { $0.count == 3 && $0[0] == "2" && $0[1] == "marker" }
        usleep(400_000)
        try send(port, "/jcap/stop")
        try dump.expect("/jcap/take", after: mark) { $0.count == 4 && $0[0] == "2" && $0[1] == "finished" }
        try send(port, "/jcap/mark", "is", 2, "circled")
        try send(port, "/jcap/note", "is", 2, "quiet, sung")
        try dump.expect("/jcap/take", after: mark) { $0 == ["2", "marked", "circled"] }
        try dump.expect("/jcap/take", after: mark) { $0 == ["2", "noted"] }

        // Take 3, discarded only when named.
        mark = dump.count
        try send(port, "/jcap/arm", "si", "A", 1)
        try send(port, "/jcap/record")
        try dump.expect("/jcap/take", after: mark) { $0 == ["3", "started"] }
        usleep(300_000)
        try send(port, "/jcap/stop", "f", 1.0)
        try dump.expect("/jcap/take", after: mark) { $0.count == 4 && $0[0] == "3" && $0[1] == "finished" }
        try send(port, "/jcap/discard")
        try dump.expect("/jcap/error", after: mark) { $0.first == "/jcap/discard" && $0[1].hasPrefix("expects i:take") }
        try send(port, "/jcap/discard", "i", 2)
        try dump.expect("/jcap/error", after: mark) { $0 == ["/jcap/discard", "take 2 is not the last take (3): nothing discarded"] }
        try send(port, "/jcap/discard", "i", 3)
        try dump.expect("/jcap/take", after: mark) { $0 == ["3", "discarded"] }
        try dump.expect("/jcap/state", after: mark) { $0.first == "ready" && $0[4] == "2" && $0[5] == "circled" }

        jcap.signal(SIGTERM)
        let status = try jcap.wait(timeout: 30)
        let entries = try TakeLog(folder: path("remote")).entries()
        XCTAssertEqual(entries.map(\.take), [1, 2, 3], jcap.errorOutput)
        let expected = entries.map { $0.lost.isEmpty ? ($0.uncertain.isEmpty ? Int32(0) : 9) : 3 }.max() ?? 0
        XCTAssertEqual(status, expected, jcap.errorOutput)
        XCTAssertTrue(jcap.errorOutput.contains("jcap: take 2: marked circled"), "the console tells OSC's actions: \(jcap.errorOutput)")

        // The keys' take and OSC's: the same kind of entry and files, each for its armed tracks.
        let (keyed, remote, discarded) = (entries[0], entries[1], entries[2])
        XCTAssertEqual(keyed.tracks.map(\.name), ["A", "B"])
        XCTAssertEqual(keyed.files.map(\.path), ["take-001-A.wav", "take-001-B.wav"])
        XCTAssertEqual(remote.tracks.map(\.name), ["B", "C"])
        XCTAssertEqual(remote.tracks.map(\.source), ["sig:out_2", "sig:out_3"])
        XCTAssertEqual(remote.files.map(\.path), ["take-002-B.wav", "take-002-C.wav"])
        XCTAssertEqual(remote.files.map(\.tracks), [["B"], ["C"]])
        XCTAssertEqual(remote.pauses.count, 1)
        XCTAssertEqual(remote.markers.count, 1)
        XCTAssertEqual(remote.mark, .circled)
        XCTAssertEqual(remote.note, "quiet, sung")
        XCTAssertNil(keyed.mark)
        for entry in [keyed, remote] {
            let account = try takeLogAccount(folder: path("remote"), take: entry.take)
            XCTAssertEqual(entry.status, takeStatus(reporting: account))
            assertAccountedFor(account, "take \(entry.take)")
            XCTAssertGreaterThan(entry.frames, Int64(server.sampleRate / 4))
        }
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: path("remote")).filter { $0.hasSuffix(".wav") }.sorted()
        XCTAssertEqual(onDisk, keyed.files.map(\.path) + remote.files.map(\.path), "no file for A in take 2; take 3's gone")
        XCTAssertEqual(discarded.status, .discarded)
        // The mark and note reached the files' iXML as the keys' do.
        for name in remote.files.map(\.path) {
            let ixml = try SoundFile.open(readingFrom: path("remote/" + name)).chunk(id: "iXML").map { String(decoding: $0, as: UTF8.self) } ?? ""
            XCTAssertTrue(ixml.contains("<CIRCLED>TRUE</CIRCLED>"), "\(name): \(ixml)")
            XCTAssertTrue(ixml.contains("<NOTE>quiet, sung</NOTE>"), "\(name): \(ixml)")
        }
    }

    // MARK: Meters and status

    /// A -20 dBFS sine reads -20 (peak) and -23 (RMS) ± 0.5 in `/jcap/meter`, which arrives at the
    /// rate subscribed (clamped to 1..50); `/jcap/status` answers with the state and every track;
    /// unsubscribed, the meters stop.
    func testMetersArriveAtTheStatedRateWithTheLevel() throws {
        let tone = try Subprocess(try Executables.built("jcap-testsignal"),
                                  ["play", "--channels", "1", "--name", "tone", "--signal", "sine", "--level=-20"],
                                  server: server.name, directory: directory)
        defer { tone.signal(SIGTERM) }
        try Self.waitFor("the tone's port") { observer.audioOutputPorts().contains("tone:out_1") }
        let file = try writeSession("meters", extra: "\n[[track]]\nname = \"Tone\"\nsource = \"tone:out_1\"\n")
        let (jcap, port) = try openSession(file)
        let dump = try OSCDump()

        var mark = dump.count
        try send(port, "/jcap/status", "i", dump.port)
        try dump.expect("/jcap/state", after: mark) { $0.first == "ready" && $0.last == "meters" }
        try dump.expect("/jcap/track", after: mark) { $0 == ["4", "Tone", "1", "0", ""] }
        XCTAssertTrue(dump.messages(after: mark).filter { $0.path == "/jcap/meter" }.isEmpty, "no meters unsubscribed")

        for (asked, rate) in [(25.0, 25.0), (500.0, 50.0), (0.01, 1.0)] {
            mark = dump.count
            try send(port, "/jcap/subscribe", "if", dump.port, asked)
            try dump.expect("/jcap/subscribed", after: mark) { $0 == ["\(dump.port)", String(format: "%.6f", rate)] }
        }
        mark = dump.count
        try send(port, "/jcap/subscribe", "if", dump.port, 25.0)
        try dump.expect("/jcap/subscribed", after: mark) { $0.count == 2 }
        // Meters of the tone, from a second on (the average's 300 ms integrator settled).
        usleep(1_000_000)
        let from = dump.count
        usleep(3_000_000)
        let meters = dump.messages(after: from).filter { $0.path == "/jcap/meter" && $0.arguments.first == "Tone" }
        let span = (meters.last?.time ?? 0) - (meters.first?.time ?? 0)
        let measured = Double(meters.count - 1) / span
        XCTAssertEqual(measured, 25, accuracy: 2.5, "\(meters.count) meter messages in \(span) s")
        let peaks = meters.map { Double($0.arguments[1]) ?? 0 }, averages = meters.map { Double($0.arguments[2]) ?? 0 }
        XCTAssertGreaterThan(meters.count, 50)
        XCTAssertTrue(peaks.allSatisfy { abs($0 + 20) <= 0.5 }, "peaks \(peaks.min() ?? 0) to \(peaks.max() ?? 0)")
        XCTAssertTrue(averages.allSatisfy { abs($0 + 23.01) <= 0.5 }, "averages \(averages.min() ?? 0) to \(averages.max() ?? 0)")
        let others = dump.messages(after: from).filter { $0.path == "/jcap/meter" && $0.arguments.first != "Tone" }
        XCTAssertEqual(Set(others.compactMap(\.arguments.first)), ["A", "B", "C"], "every track's meter")

        mark = dump.count
        try send(port, "/jcap/unsubscribe", "i", dump.port)
        try dump.expect("/jcap/unsubscribed", after: mark) { $0 == ["\(dump.port)"] }
        usleep(300_000)
        let quiet = dump.count
        usleep(500_000)
        XCTAssertEqual(dump.messages(after: quiet).count, 0, "nothing after unsubscribing")
        jcap.signal(SIGTERM)
        XCTAssertEqual(try jcap.wait(timeout: 30), 0, jcap.errorOutput)
    }

    // MARK: What cannot be read changes nothing

    /// During a take: unknown paths, wrong argument types, a mark that is none, commands the
    /// core refuses now, packets that are not OSC and a truncated one each get (at most) their
    /// `/jcap/error` and change nothing: the take runs on, every sample in place, nothing paused,
    /// marked or re-armed. After it, a failure of the core (an unknown track) is replied too.
    func testUnknownPathsWrongTypesAndGarbageChangeNothing() throws {
        let file = try writeSession("garbage")
        let (jcap, port) = try openSession(file)
        let dump = try OSCDump()
        var mark = dump.count
        try send(port, "/jcap/subscribe", "i", dump.port)
        try dump.expect("/jcap/subscribed", after: mark) { $0 == ["\(dump.port)", "20.000000"] }
        try send(port, "/jcap/record")
        try dump.expect("/jcap/take", after: mark) { $0 == ["1", "started"] }

        mark = dump.count
        let refused: [(path: String, types: String, values: [Any], reason: String)] = [
            ("/jcap/bogus", "", [], "unknown path"),
            ("/record", "i", [1], "unknown path"),
            ("/jcap/arm", "is", [1, "A"], "expects s:track"),
            ("/jcap/arm", "s", ["A"], "a take is recording; stop it before arming or disarming a track"),
            ("/jcap/arm", "si", ["B", 3], "expects s:track"),
            ("/jcap/mark", "is", [1, "great"], "no mark 'great'"),
            ("/jcap/mark", "si", ["1", 1], "expects i:take"),
            ("/jcap/note", "i", [1], "expects i:take and s:text"),
            ("/jcap/pause", "s", ["yes"], "expects no argument"),
            ("/jcap/stop", "ii", [1, 1], "expects no argument"),
            ("/jcap/subscribe", "s", ["osc.udp://example.org:9000/"], "expects [i:port]"),
            ("/jcap/status", "i", [70_000], "port 70000 is not a UDP port"),
            ("/jcap/record", "", [], "a take is recording; /jcap/stop stops it"),
            ("/jcap/discard", "i", [1], "a take is recording; stop it before discarding"),
            ("/jcap/resume", "", [], "not paused"),
        ]
        for message in refused {
            try send(port, message.path, message.types, message.values)
        }
        // Not OSC at all, many times, and an OSC message cut short of its argument.
        try sendRaw(port, "garbage", times: 200)
        try sendRaw(port, "/jcap/record\\0\\0\\0\\0,i\\0\\0")
        // A well-formed /jcap/stop i:0 (a button's release) stops nothing either.
        try sendRaw(port, "/jcap/stop\\0\\0,i\\0\\0\\0\\0\\0\\0")
        try send(port, "/jcap/status")
        try Self.waitFor("an error for each") {
            dump.messages(after: mark).filter { $0.path == "/jcap/error" }.count >= refused.count
        }
        // liblo refused them all, and jcap said so.
        let malformedTold = {
            jcap.errorOutput.split(separator: "\n").compactMap { line in
                line.hasPrefix("jcap: OSC: ") && line.contains(" malformed packet") ? Int(line.dropFirst(11).prefix { $0.isNumber }) : nil
            }.reduce(0, +)
        }
        try Self.waitFor("the malformed packets told") { malformedTold() >= 201 }
        usleep(300_000)
        XCTAssertEqual(malformedTold(), 201, jcap.errorOutput)
        let errors = dump.messages(after: mark).filter { $0.path == "/jcap/error" }.map(\.arguments)
        XCTAssertEqual(errors.count, refused.count, "\(errors)")
        for (error, message) in zip(errors, refused) {
            XCTAssertEqual(error.first, message.path)
            XCTAssertTrue(error.last?.hasPrefix(message.reason) == true, "\(message.path): \(error)")
        }
        XCTAssertFalse(dump.messages(after: mark).contains { $0.path == "/jcap/take" && $0.arguments.contains("finished") },
                       "the take runs on")
        XCTAssertFalse(dump.messages(after: mark).contains { $0.path == "/jcap/state" && $0.arguments.first != "recording" })
        usleep(300_000)
        mark = dump.count
        try send(port, "/jcap/stop")
        try dump.expect("/jcap/take", after: mark) { $0.count == 4 && $0[0] == "1" && $0[1] == "finished" }
        try send(port, "/jcap/arm", "si", "Cowbell", 1)
        try dump.expect("/jcap/error", after: mark) { $0 == ["/jcap/arm", "no track 'Cowbell' in the session (its tracks: 'A', 'B', 'C')"] }

        jcap.signal(SIGTERM)
        let status = try jcap.wait(timeout: 30)
        let entries = try TakeLog(folder: path("garbage")).entries()
        XCTAssertEqual(entries.map(\.take), [1], jcap.errorOutput)
        let take = try XCTUnwrap(entries.first)
        XCTAssertEqual(status, take.lost.isEmpty ? (take.uncertain.isEmpty ? 0 : 9) : 3, jcap.errorOutput)
        XCTAssertEqual(take.tracks.map(\.name), ["A", "B"])
        XCTAssertEqual(take.pauses.count, 0)
        XCTAssertEqual(take.markers.count, 0)
        XCTAssertNil(take.mark)
        XCTAssertNil(take.note)
        XCTAssertGreaterThan(take.frames, Int64(server.sampleRate))
        let account = try takeLogAccount(folder: path("garbage"), take: 1)
        XCTAssertEqual(take.status, takeStatus(reporting: account))
        assertAccountedFor(account)
    }

    /// At most 16 subscribers: a 17th replaces the oldest, which is told and hears no more.
    func testTheSeventeenthSubscriberReplacesTheOldest() throws {
        let file = try writeSession("many")
        let (jcap, port) = try openSession(file)
        let dump = try OSCDump()
        var mark = dump.count
        try send(port, "/jcap/subscribe", "if", dump.port, 10.0)
        try dump.expect("/jcap/subscribed", after: mark) { $0.first == "\(dump.port)" }
        try dump.expect("/jcap/meter", after: mark) { $0.first == "A" }
        // 15 more (nothing listens on their ports: UDP cannot tell), then the 17th.
        mark = dump.count
        for _ in 1...15 { try send(port, "/jcap/subscribe", "i", try OSCDump.freeUDPPort()) }
        usleep(300_000)
        XCTAssertFalse(dump.messages(after: mark).contains { $0.path == "/jcap/unsubscribed" }, "16 are allowed")
        try send(port, "/jcap/subscribe", "i", try OSCDump.freeUDPPort())
        try dump.expect("/jcap/unsubscribed", after: mark) { $0 == ["\(dump.port)"] }
        usleep(300_000)
        let after = dump.count
        usleep(500_000)
        XCTAssertEqual(dump.messages(after: after).count, 0, "no more meters for the oldest")
        jcap.signal(SIGTERM)
        XCTAssertEqual(try jcap.wait(timeout: 30), 0, jcap.errorOutput)
    }

    /// Unattended (`--at`, `--for`), OSC listens too: takes start by themselves, so `/jcap/record`
    /// is refused, and the subscriber hears of the take and its end.
    func testUnattendedTheSubscriberHearsTheTakeAndRecordIsRefused() throws {
        let file = try writeSession("unattended")
        let dump = try OSCDump()
        let jcap = try Subprocess(try Executables.built("jcap"),
                                  ["session", file, "--osc", "0", "--at", "+1s", "--for", "1s", "--meter", "none"],
                                  server: server.name, directory: directory)
        var port: Int64?
        try Self.waitFor("jcap's OSC port") {
            port = number(after: "jcap: OSC on UDP port ", in: jcap.errorOutput)
            return port != nil || !jcap.process.isRunning
        }
        let osc = Int(try XCTUnwrap(port, jcap.errorOutput))
        try send(osc, "/jcap/subscribe", "i", dump.port)
        try send(osc, "/jcap/record")
        try dump.expect("/jcap/error", after: 0) { $0.first == "/jcap/record" && $0.last?.hasPrefix("takes start by themselves") == true }
        // The take was made (waiting for its start) before anyone subscribed: the state says so.
        try dump.expect("/jcap/state", after: 0) { ["waiting", "recording"].contains($0.first ?? "") && $0[1] == "1" }
        try dump.expect("/jcap/take", after: 0) { $0.count == 4 && $0[0] == "1" && $0[1] == "finished" }
        let status = try jcap.wait(timeout: 30)
        let take = try XCTUnwrap(try TakeLog(folder: path("unattended")).entries().first, jcap.errorOutput)
        XCTAssertEqual(status, take.lost.isEmpty ? (take.uncertain.isEmpty ? 0 : 9) : 3, jcap.errorOutput)
        XCTAssertEqual(take.frames, Int64(server.sampleRate))
        assertAccountedFor(try takeLogAccount(folder: path("unattended"), take: 1))
    }

    /// A port taken is exit status 27, before the server is touched; one out of range is usage (64).
    func testATakenPortIsItsOwnExitStatus() throws {
        let file = try writeSession("taken")
        let dump = try OSCDump()
        let taken = try runJcap(["session", file, "--osc", "\(dump.port)", "--meter", "none"])
        XCTAssertEqual(taken.status, 27, taken.errors)
        XCTAssertTrue(taken.errors.contains("jcap: error: cannot listen for OSC on UDP port \(dump.port)"), taken.errors)
        let wrong = try runJcap(["session", file, "--osc", "70000", "--meter", "none"])
        XCTAssertEqual(wrong.status, 64, wrong.errors)
        XCTAssertTrue(wrong.errors.contains("--osc"), wrong.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("taken")), "nothing opened")
    }
}
