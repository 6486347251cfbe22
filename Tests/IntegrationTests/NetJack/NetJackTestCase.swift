import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// A test with a NetJACK2 link of its own (`NetJackLink`: a master and a slave started by
/// tools/netjack), the test signal playing on the master into `slave1:to_slave_1...N` (so the
/// slave's `system:capture_N` carries the master's `sig:out_N`), and a watcher on each server
/// counting its xruns (`jcap-testsignal xruns`).
///
/// The watchers are processes of their own: libjack attaches a process to the shared memory of
/// the first server it opens a client on, so clients a test process opens on a master and then a
/// slave both read the master (the slave's "observer" listed the master's ports and counted its
/// xruns, and a take's slave xruns went unseen). A test opens clients of its own on one server.
class NetJackTestCase: XCTestCase {
    var link: NetJackLink!
    var signal: Subprocess?
    var masterWatch: Subprocess?
    var slaveWatch: Subprocess?
    var timecode: Subprocess?
    var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "/jcaptest-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        stopLink()
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Stops the test signal, the observers and the servers.
    func stopLink() {
        timecode?.signal(SIGTERM)
        _ = try? timecode?.wait(timeout: 10)
        timecode = nil
        signal?.signal(SIGTERM)
        _ = try? signal?.wait(timeout: 10)
        signal = nil
        for watch in [masterWatch, slaveWatch] {
            watch?.signal(SIGTERM)
            _ = try? watch?.wait(timeout: 10)
        }
        masterWatch = nil
        slaveWatch = nil
        link?.stop()
        link = nil
    }

    /// The slave's jackd exited under the take: jackd 1.9.21's net driver sometimes does, at 64
    /// channels and more with 256-frame periods (docs/netjack.md). The take says nothing of jcap.
    struct SlaveServerExited: Error {}

    /// Throws `SlaveServerExited` when jcap's run failed and the slave's server is gone (no
    /// client can open on it).
    func checkSlaveServer(afterRunWithStatus status: Int32) throws {
        guard status != 0 else { return }
        if let probe = try? JackClient(name: "probe", server: link.slaves[0]) {
            probe.close()
            return
        }
        throw SlaveServerExited()
    }

    /// Runs `take` on a link of its own (`startLink`); where the slave's jackd exits during it,
    /// says so and runs it again on a new link, three times at most.
    func onNewLink(period: Int, channels: Int, _ take: () throws -> Void) throws {
        for attempt in 1...3 {
            try startLink(period: period, channels: channels)
            do {
                try take()
                return
            } catch is SlaveServerExited {
                print("note: the slave's jackd exited during attempt \(attempt) of \(name); taking it again on a new link")
                stopLink()
            }
        }
        throw TestFailure("the slave's jackd exited in three attempts in a row")
    }

    /// Starts the link, the test signal on `channels` master ports patched to the slave, and the
    /// observers. `spareChannels`: the link carries that many channels more, after the signal's.
    func startLink(period: Int, channels: Int, slaves: Int = 1, spareChannels: Int = 0) throws {
        link = try NetJackLink(period: period, channels: channels + spareChannels, slaves: slaves)
        // Named apart: JACK 2 names a client's socket after the client alone (see recordBoth).
        masterWatch = try Subprocess(try Executables.built("jcap-testsignal"), ["xruns", "--name", "xruns-master"],
                                     server: link.master, directory: directory)
        slaveWatch = try Subprocess(try Executables.built("jcap-testsignal"), ["xruns", "--name", "xruns-slave"],
                                    server: link.slaves[0], directory: directory)
        try JackTestCase.waitFor("the xrun watchers") {
            [masterWatch, slaveWatch].allSatisfy { $0?.output.hasPrefix("watching xruns") == true }
        }
        signal = try Subprocess(try Executables.built("jcap-testsignal"), ["play", "--channels", "\(channels)", "--name", "sig"],
                                server: link.master, directory: directory)
        let master = try JackClient(name: "patcher", server: link.master)
        defer { master.close() }
        try JackTestCase.waitFor("test signal ports") { master.audioOutputPorts().contains("sig:out_\(channels)") }
        // The master's netmanager may re-create a slave's client once while the link settles:
        // a connection refused then is made again.
        try JackTestCase.waitFor("the signal patched to the slaves") {
            (1...channels).allSatisfy { index in
                (1...slaves).allSatisfy { (try? master.connect("sig:out_\(index)", to: "slave\($0):to_slave_\(index)")) != nil }
            }
        }
    }

    func path(_ name: String) -> String { directory + "/" + name }

    /// Runs `jcap timecode` on the master, patched to the slave's link channel `channel` (a spare
    /// one: `startLink(spareChannels:)`), so that the slave's `system:capture_<channel>` carries
    /// the master's clock. Returns that capture port's name.
    @discardableResult
    func startTimecode(onLinkChannel channel: Int) throws -> String {
        let process = try Subprocess(try Executables.built("jcap"), ["timecode", "--name", "tc", "--connect", "slave1:to_slave_\(channel)"],
                                     server: link.master, directory: directory)
        timecode = process
        try JackTestCase.waitFor("jcap timecode", saying: { process.errorOutput }) { process.errorOutput.contains("jcap timecode:") }
        return "system:capture_\(channel)"
    }

    /// A take jcap recorded on the slave: its exit status, what it printed, the xruns each server
    /// reported during it, the link's offset its file's first frame shows (the master's frame time
    /// less the slave's) and its account at that offset (`slaveAccount`).
    struct SlaveTake {
        let status: Int32
        let output: String
        let errors: String
        let xruns: (master: Int, slave: Int)
        let linkOffset: Int
        let account: TakeAccount
    }

    /// Runs jcap on the slave with `arguments`, into `file` as float with its `--meter json`
    /// summary, does `meanwhile` while it runs, and reads the take once it exits. Throws
    /// `SlaveServerExited` when jcap made no take because the slave's server is gone.
    func recordOnSlave(_ arguments: [String], file: String, timeout: TimeInterval = 60,
                       meanwhile: () throws -> Void = {}) throws -> SlaveTake {
        let mark = xrunMark()
        let jcap = try Subprocess(try Executables.built("jcap"), arguments + ["--format", "float", "-o", file, "--meter", "json"],
                                  server: link.slaves[0], directory: directory)
        try meanwhile()
        let status = try jcap.wait(timeout: timeout)
        let output = jcap.output, errors = jcap.errorOutput
        guard let startFrame = number(after: "\"start_frame\":", in: output) else {
            try checkSlaveServer(afterRunWithStatus: status)
            throw TestFailure("jcap made no take (exit \(status)): \(errors)")
        }
        let xruns = xruns(since: mark)
        let offset = signalDistance(from: Int(startFrame) % TestSignal.timeModulus, to: try firstFrameTime(file))
        return SlaveTake(status: status, output: output, errors: errors, xruns: xruns, linkOffset: offset,
                         account: try slaveAccount(output, linkOffset: offset))
    }

    /// Runs jcap against `server` to the end: its status, standard output and standard error.
    func runJcap(_ arguments: [String], server: String, timeout: TimeInterval = 60) throws
        -> (status: Int32, output: String, errors: String) {
        let jcap = try Subprocess(try Executables.built("jcap"), arguments, server: server, directory: directory)
        let status = try jcap.wait(timeout: timeout)
        return (status, jcap.output, jcap.errorOutput)
    }

    /// The xruns each server has reported so far, to count a take's by (`xruns(since:)`).
    func xrunMark() -> (master: Int, slave: Int) { serverXruns() }

    /// The xruns each server reported since `mark`, once the watchers have printed them (within
    /// 50 ms of JACK's notification).
    func xruns(since mark: (master: Int, slave: Int)) -> (master: Int, slave: Int) {
        usleep(250_000)
        let now = serverXruns()
        return (now.master - mark.master, now.slave - mark.slave)
    }

    typealias MasterStep = SlaveTakeVerification.MasterStep

    /// Checks a take recorded on the slave without the master's timecode against jcap's report
    /// (`account`, at the link's offset its first frame showed) and the master's own xruns
    /// (`SlaveTakeVerification`: each may account for a step of the file against the master's
    /// clock, or for one period not filled from one of the master's; with none, nothing beyond
    /// jcap's report is allowed).
    func verifySlaveTake(_ account: TakeAccount, masterXruns: Int) -> (verification: TakeVerification, steps: [MasterStep]) {
        SlaveTakeVerification.verify(account, masterXruns: masterXruns, period: link.period)
    }

    /// The exit status jcap's report of a take calls for: 3 with frames lost, a master clock jump
    /// (the account's pauses: no NetJACK test pauses a take) or a link dropout (`dropouts`, jcap's
    /// estimate from its callbacks' times), 9 with periods placed uncertainly, else 0.
    func exitStatus(reporting account: TakeAccount, dropouts: [LostSpan] = []) -> Int32 {
        !account.lostSpans.isEmpty || !account.pauses.isEmpty || !dropouts.isEmpty ? 3 : !account.uncertainSpans.isEmpty ? 9 : 0
    }

    /// The xruns each server has reported since its watcher started.
    private func serverXruns() -> (master: Int, slave: Int) {
        func count(_ watch: Subprocess?) -> Int {
            watch?.output.split(separator: "\n").count { $0.hasPrefix("xrun ") } ?? 0
        }
        return (count(masterWatch), count(slaveWatch))
    }

    /// The master frame time (mod 2^22) that the first frame of file channel `channel` carries,
    /// a recording of test-signal channel `signalChannel` (the same unless told).
    func firstFrameTime(_ file: String, channel: Int = 0, signalChannel: Int? = nil) throws -> Int {
        let sound = try SoundFile.open(readingFrom: path(file))
        var buffer = [Float](repeating: 0, count: sound.channels)
        let read = buffer.withUnsafeMutableBufferPointer { sound.read(into: $0.baseAddress!, frames: 1) }
        guard read == 1 else { throw TestFailure("\(file) is empty") }
        guard let time = TestSignal.frameTime(decoding: buffer[channel], channel: signalChannel ?? channel) else {
            throw TestFailure("\(file)'s first frame is not the test signal (\(buffer[channel]))")
        }
        return time
    }

    /// Frames from `earlier` to `later`, both modulo 2^22, as the signed distance nearest zero.
    func signalDistance(from earlier: Int, to later: Int) -> Int {
        SlaveTakeVerification.distance(from: earlier, to: later)
    }

    /// The account of a take jcap recorded on the slave from `system:capture_1...N`, from its
    /// `--meter json` summary: every file channel N is the test signal's channel N, shifted by
    /// `linkOffset` frames (the master's frame time less the slave's); master clock jumps jcap
    /// reported (`--master-clock`) move the signal on where they happened.
    func slaveAccount(_ output: String, linkOffset: Int) throws -> TakeAccount {
        var account = try takeAccount(output, signalChannel: TakeAccount.signalChannel(ofCapturePort:))
        for index in account.files.indices {
            account.files[index].shifts = Array(repeating: linkOffset, count: account.files[index].signalChannels.count)
        }
        return account
    }

    /// The account of a take jcap recorded from the test signal's own ports (on the master), from
    /// its `--meter json` summary.
    func masterAccount(_ output: String) throws -> TakeAccount {
        try takeAccount(output, signalChannel: TakeAccount.signalChannel(ofPort:))
    }

    private func takeAccount(_ output: String, signalChannel: (String) -> Int?) throws -> TakeAccount {
        let line = try XCTUnwrap(output.split(separator: "\n").last { $0.hasPrefix("{\"summary\"") }, "no summary in \(output.suffix(500))")
        var account = try XCTUnwrap(TakeAccount(meterSummaryLine: line, signalChannel: signalChannel), "no take of the signal: \(line)")
        for index in account.files.indices where !account.files[index].path.hasPrefix("/") {
            account.files[index].path = path(account.files[index].path)
        }
        return account
    }

    /// The last number after `prefix` in `text` (jcap's summary comes last).
    func number(after prefix: String, in text: String) -> Int64? {
        guard let range = text.range(of: prefix, options: .backwards) else { return nil }
        return Int64(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// The link dropouts in jcap's `--meter json` summary.
    func reportedDropouts(_ output: String) throws -> [LostSpan] { try reportedSpans("dropouts", in: output) }

    /// The spans (position, frames) under `key` in jcap's `--meter json` summary.
    func reportedSpans(_ key: String, in output: String) throws -> [LostSpan] {
        let line = try XCTUnwrap(output.split(separator: "\n").last { $0.hasPrefix("{\"summary\"") }, "no summary")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let summary = try XCTUnwrap(object["summary"] as? [String: Any])
        let spans = try XCTUnwrap(summary[key] as? [[String: Any]], "no \(key) key: \(line)")
        return spans.map {
            LostSpan(position: ($0["position"] as? NSNumber)?.int64Value ?? -1, frames: ($0["frames"] as? NSNumber)?.int64Value ?? -1)
        }
    }
}
