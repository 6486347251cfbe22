import Atomics
import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// A test class with a private dummy JACK server of its own (started once for the class, stopped by
/// PID after it), the test-signal client playing on 64 ports (`sig:out_1` ... `sig:out_64`), and a
/// client of the test's own to read the server's clock and patch ports.
class JackTestCase: XCTestCase {
    nonisolated(unsafe) static var server: PrivateJackServer!
    nonisolated(unsafe) static var signal: Subprocess!
    nonisolated(unsafe) static var observer: JackClient!
    nonisolated(unsafe) static var setUpFailure: Error?
    /// Xruns anywhere on the server, counted by the observer client.
    static let serverXruns = UnsafeAtomic<Int>.create(0)
    static let signalChannels = 64

    /// 1024-frame periods: on these shared 2-core VMs a dummy server at 256 frames misses deadlines
    /// by itself (a few xruns a minute with no client at all); at 512 and above it does not.
    /// `JCAPTEST_PERIOD=256` runs the servers at another period: a storm of xruns on a busy
    /// machine, to see disturbed takes judged against what jcap reported.
    class var period: Int { ProcessInfo.processInfo.environment["JCAPTEST_PERIOD"].flatMap(Int.init) ?? 1_024 }

    override class func setUp() {
        super.setUp()
        do {
            server = try PrivateJackServer(period: period)
            observer = try JackClient(name: "observer", server: server.name)
            serverXruns.store(0, ordering: .relaxed)
            observer.setXrunCallback({ _ in
                JackTestCase.serverXruns.wrappingIncrement(ordering: .relaxed)
                return 0
            }, argument: UnsafeMutableRawPointer(bitPattern: 1)!)
            try observer.activate()
            signal = try Subprocess(try Executables.built("jcap-testsignal"),
                                    ["play", "--channels", "\(signalChannels)", "--name", "sig"],
                                    server: server.name, directory: NSTemporaryDirectory())
            try waitFor("test signal ports") { observer.audioOutputPorts().contains("sig:out_\(signalChannels)") }
        } catch {
            setUpFailure = error
        }
    }

    override class func tearDown() {
        signal?.signal(SIGTERM)
        _ = try? signal?.wait(timeout: 10)
        signal = nil
        observer?.close()
        observer = nil
        server?.stop()
        server = nil
        super.tearDown()
    }

    var directory: String!

    override func setUpWithError() throws {
        if let failure = Self.setUpFailure { throw failure }
        directory = NSTemporaryDirectory() + "/jcaptest-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    var server: PrivateJackServer { Self.server }
    var observer: JackClient { Self.observer }

    /// A frame `seconds` ahead of JACK's clock. Tests that start jcap on a frame give it 3 s:
    /// each program started (a player, a recorder, a session) must be a ready JACK client by
    /// then on a machine that other test processes' servers share (2 s was once too little for
    /// a player and a recorder beside three of them; 1 s left a single recorder no margin).
    func frameAhead(_ seconds: Double) -> UInt32 {
        FrameTime.advance(observer.estimatedFrameTime, by: Int(seconds * Double(server.sampleRate)))
    }

    /// `--port` arguments for the first `count` test-signal channels.
    func signalPorts(_ count: Int) -> [String] {
        (1...count).flatMap { ["--port", "sig:out_\($0)"] }
    }

    /// Starts jcap against this class's server.
    func launchJcap(_ arguments: [String]) throws -> Subprocess {
        try Subprocess(try Executables.built("jcap"), arguments, server: server.name, directory: directory)
    }

    /// Runs jcap to the end; returns its exit status and standard error.
    func runJcap(_ arguments: [String], timeout: TimeInterval = 60) throws -> (status: Int32, errors: String) {
        let jcap = try launchJcap(arguments)
        let status = try jcap.wait(timeout: timeout)
        return (status, jcap.errorOutput)
    }

    func path(_ name: String) -> String { directory + "/" + name }

    /// A moment `ahead` seconds from now, on a millisecond: microseconds since the epoch, as
    /// `HH:MM:SS.fff` (local) and as `YYYY-MM-DDTHH:MM:SS.fffZ`, as `--at` takes them.
    func moment(secondsAhead ahead: Double) -> (microseconds: Int64, timeOfDay: String, utc: String) {
        let target = (WallClockTime.nowMicrosecondsSinceEpoch() + Int64(ahead * 1_000_000)) / 1_000 * 1_000
        var seconds = time_t(target / 1_000_000)
        var local = tm()
        localtime_r(&seconds, &local)
        var utc = tm()
        gmtime_r(&seconds, &utc)
        let milliseconds = Int(target % 1_000_000) / 1_000
        return (target, String(format: "%02d:%02d:%02d.%03d", local.tm_hour, local.tm_min, local.tm_sec, milliseconds),
                String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                       utc.tm_hour, utc.tm_min, utc.tm_sec, milliseconds))
    }

    /// Server xruns from `before` seconds before a wall-clock `moment` (microseconds since the
    /// epoch) to `after` seconds after it, waiting until then; nil when the test reached the
    /// window's start late, so that they are not known. An xrun there can skip a client's
    /// callback in the cycle the moment falls in: it then decides a cycle later.
    func serverXruns(aroundMoment moment: Int64, before: Double = 0.3, after: Double = 0.2) -> Int? {
        func sleep(until instant: Int64) {
            let wait = instant - WallClockTime.nowMicrosecondsSinceEpoch()
            if wait > 0 { usleep(useconds_t(wait)) }
        }
        let from = moment - Int64(before * 1_000_000)
        let known = WallClockTime.nowMicrosecondsSinceEpoch() < from
        sleep(until: from)
        let count = Self.serverXruns.load(ordering: .relaxed)
        sleep(until: moment + Int64(after * 1_000_000))
        return known ? Self.serverXruns.load(ordering: .relaxed) - count : nil
    }

    /// Writes a 32-bit float WAV in the test's directory, at the server's rate: `sample(frame,
    /// channel)` for every sample. Returns its path.
    func writeFloatFile(_ name: String, channels: Int, frames: Int, sample: (Int, Int) -> Float) throws -> String {
        let file = path(name)
        let writer = try SoundFile.create(path: file, format: try RecordingSettings(format: .float).resolveFormat(forPath: file),
                                          channels: channels, sampleRate: server.sampleRate, overwrite: false)
        let samples = (0..<(frames * channels)).map { sample($0 / channels, $0 % channels) }
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
        try writer.close()
        return file
    }

    /// Checks every sample of a recording of the test signal.
    func check(_ name: String) throws -> TestSignalReport {
        TestSignalReport.check(file: try SoundFile.open(readingFrom: path(name)))
    }

    /// The test signal's frame time (modulo 2^22) for a JACK frame time.
    func signalTime(_ frame: UInt32) -> Int { Int(frame) % TestSignal.timeModulus }

    /// Frames from `earlier` to `later`, both modulo 2^22.
    func signalDistance(from earlier: Int, to later: Int) -> Int {
        ((later - earlier) % TestSignal.timeModulus + TestSignal.timeModulus) % TestSignal.timeModulus
    }

    /// The first number after `prefix` in `text`.
    func number(after prefix: String, in text: String) -> Int64? {
        guard let range = text.range(of: prefix) else { return nil }
        return Int64(text[range.upperBound...].prefix { $0.isNumber })
    }

    static func waitFor(_ what: String, timeout: TimeInterval = 15, saying output: () -> String = { "" },
                        _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else {
                let said = output()
                throw TestFailure("timed out waiting for \(what)" + (said.isEmpty ? "" : "; it said: \(said)"))
            }
            usleep(20_000)
        }
    }
}
