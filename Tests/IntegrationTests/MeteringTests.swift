import Foundation
import XCTest
@testable import JackCapture

/// The meters read known signals from the test-signal client right: a full-scale sine, one at
/// -20 dBFS, one 3 dB beyond full scale, and silence.
final class MeteringTests: JackTestCase {
    nonisolated(unsafe) static var sines: [Subprocess] = []
    static let sources = [
        ("fullscale", ["--signal", "sine", "--level=0"]),
        ("minus20", ["--signal", "sine", "--level=-20"]),
        ("hot", ["--signal", "sine", "--level=3"]),
        ("quiet", ["--signal", "silence"]),
    ]

    override class func setUp() {
        super.setUp()
        guard setUpFailure == nil else { return }
        do {
            for (name, arguments) in sources {
                sines.append(try Subprocess(try Executables.built("jcap-testsignal"),
                                            ["play", "--channels", "1", "--name", name] + arguments,
                                            server: server.name, directory: NSTemporaryDirectory()))
            }
            do {
                try waitFor("sine ports") { sources.allSatisfy { observer.audioOutputPorts().contains("\($0.0):out_1") } }
            } catch {
                throw TestFailure("\(error): \(sines.map { $0.errorOutput + $0.output }); ports: \(observer.audioOutputPorts().filter { !$0.hasPrefix("sig:") })")
            }
        } catch {
            setUpFailure = error
        }
    }

    override class func tearDown() {
        for sine in sines { sine.signal(SIGTERM); _ = try? sine.wait(timeout: 10) }
        sines = []
        super.tearDown()
    }

    func meteredTake(metering: Bool = true) throws -> OneTake {
        var configuration = CaptureConfiguration()
        configuration.serverName = server.name
        configuration.clientName = "meters"
        configuration.sources = .ports(Self.sources.map { "\($0.0):out_1" })
        configuration.outputPath = path("metered.wav")
        configuration.settings.format = .float
        let session = try OneTake(configuration: configuration)
        session.isMeteringEnabled = metering
        return session
    }

    func testKnownSignalsReadTheirLevels() throws {
        let session = try meteredTake()
        try session.start()
        // Read the way a console does, 20 times a second, for 2 s: ~7 averaging time constants.
        for _ in 0..<40 {
            usleep(50_000)
            session.updateMeters()
        }
        session.stop()
        let report = session.finish()
        let account = try account(of: report, signalChannels: [0, 1, 2, 3])
        XCTAssertEqual(report.outcome, outcome(reporting: account))

        // The live readings, once no frame was reported in the take's last second: the meters
        // never see a lost period, and the readings fall back over about a second.
        let lastSecond = report.frames - Int64(server.sampleRate)
        let troubled = (account.lostSpans + account.lateCopySpans + account.uncertainSpans).contains { $0.position + $0.frames > lastSecond }
        if troubled {
            print("note: \(name): the live readings not checked: jcap reported frames in the take's last second: \(account)")
        } else {
            XCTAssertEqual(session.peakPower(forChannel: 0), 0, accuracy: 0.1, "full-scale sine peaks at 0 dBFS")
            XCTAssertEqual(session.averagePower(forChannel: 0), -3.01, accuracy: 0.1, "and averages -3.01 dBFS")
            XCTAssertEqual(session.peakPower(forChannel: 1), -20, accuracy: 0.1)
            XCTAssertEqual(session.averagePower(forChannel: 1), -23.01, accuracy: 0.1)
            XCTAssertGreaterThan(session.peakPower(forChannel: 2), 2.9, "beyond full scale reads above 0")
            XCTAssertEqual(session.averagePower(forChannel: 2), -0.01, accuracy: 0.1)
        }
        XCTAssertEqual(session.peakPower(forChannel: 3), -160)
        XCTAssertEqual(session.averagePower(forChannel: 3), -160)

        let hot = session.meterReading(forChannel: 2)
        XCTAssertTrue(hot.isClipped, "the clip indicator latches")
        XCTAssertGreaterThan(hot.clipCount, 1_000)
        XCTAssertEqual(hot.highestPeak, 3, accuracy: 0.1)
        XCTAssertFalse(session.meterReading(forChannel: 1).isClipped)
        XCTAssertFalse(session.meterReading(forChannel: 3).isClipped)
        XCTAssertEqual(session.meterReading(forChannel: 1).peakHold, -20, accuracy: 0.1)

        let levels = try XCTUnwrap(report.channelLevels)
        XCTAssertEqual(levels[1].highestPeak, -20, accuracy: 0.1)
        XCTAssertEqual(levels[1].clipCount, 0)
        XCTAssertGreaterThan(levels[2].clipCount, 0)
        XCTAssertEqual(levels[3].highestPeak, -160)

        // The take's clips and peak are those of exactly the frames in the file (float: as played).
        let file = try SoundFile.open(readingFrom: path("metered.wav"))
        var samples = [Float](repeating: 0, count: 4_096 * 4)
        var clips = [Int64](repeating: 0, count: 4)
        var peaks = [Float](repeating: 0, count: 4)
        while true {
            let read = samples.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: 4_096) }
            guard read > 0 else { break }
            for frame in 0..<read {
                for channel in 0..<4 {
                    let magnitude = samples[frame * 4 + channel].magnitude
                    if magnitude >= 1 { clips[channel] += 1 }
                    peaks[channel] = max(peaks[channel], magnitude)
                }
            }
        }
        XCTAssertEqual(levels.map(\.clipCount), clips, "clipped samples counted over the take's frames exactly")
        XCTAssertEqual(levels[2].highestPeak, 20 * log10(peaks[2]), accuracy: 0.0001)
    }

    func testPeakFallsBackAfterTheSignalStops() throws {
        let session = try meteredTake()
        try session.start()
        for _ in 0..<10 { usleep(50_000); session.updateMeters() }
        XCTAssertEqual(session.peakPower(forChannel: 1), -20, accuracy: 0.1)
        try observer.disconnect("minus20:out_1", from: "meters:in_2")
        for _ in 0..<20 { usleep(50_000); session.updateMeters() }
        // After ~1 s of silence the peak has fallen about 11.8 dB, the average far more.
        let peak = session.peakPower(forChannel: 1)
        XCTAssertLessThan(peak, -27)
        XCTAssertGreaterThan(peak, -40)
        XCTAssertLessThan(session.averagePower(forChannel: 1), -30)
        session.stop()
        _ = session.finish()
    }

    func testMeteringOffMeasuresNothing() throws {
        let session = try meteredTake(metering: false)
        try session.start()
        usleep(300_000)
        session.updateMeters()
        XCTAssertEqual(session.peakPower(forChannel: 0), -160)
        session.stop()
        XCTAssertNil(session.finish().channelLevels)
    }
}

extension MeteringTests {
    /// The proof of rate conversion: a 1 kHz sine recorded at 48 kHz and written at
    /// 44.1 kHz is still 1 kHz, at its level, in a file of exactly the converted length. Measured
    /// away from every span jcap reported (an xrun's silence, a late or guessed period), not
    /// repeated until the server is quiet.
    func testOneKilohertzRecordedAt48kAndWrittenAt44k1StaysOneKilohertzAtItsLevel() throws {
        for quality in ["best", "fastest"] {
            let name = "resampled-\(quality).wav"
            let run = try runJcapReporting(["--port", "minus20:out_1", "--port", "fullscale:out_1", "--for", "2s", "--rate", "44100",
                                            "--src-quality", quality, "--bit-depth", "float", "-o", name, "-v"])
            let account = try XCTUnwrap(run.account, run.errors)
            XCTAssertEqual(run.status, exitStatus(reporting: account), run.errors)
            XCTAssertTrue(run.errors.contains("resampled from 48000 to 44100 Hz (88200 frames in the file)"), run.errors)
            let file = try SoundFile.open(readingFrom: path(name))
            XCTAssertEqual(file.sampleRate, 44_100)
            XCTAssertEqual(file.frames, 88_200, "2 s at 44.1 kHz exactly")
            var samples = [Float](repeating: 0, count: Int(file.frames) * 2)
            _ = samples.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: Int(file.frames)) }
            // Away from the edges, where the filter starts and ends, and from each reported span (take
            // frames at 48 kHz) by as much again, where the filter rings on its silence or jump.
            let margin = 2_000
            let excluded = (account.lostSpans + account.lateCopySpans + account.uncertainSpans).map {
                (Int($0.position) * 44_100 / 48_000 - margin)...(Int($0.position + $0.frames) * 44_100 / 48_000 + margin)
            }
            var stretches: [Range<Int>] = []
            var from = margin
            for cut in excluded.sorted(by: { $0.lowerBound < $1.lowerBound }) + [86_200...88_200] {
                if cut.lowerBound > from { stretches.append(from..<cut.lowerBound) }
                from = max(from, cut.upperBound + 1)
            }
            // Long enough to measure in (a stretch of at least 100 cycles); most of the take left.
            stretches = stretches.filter { $0.count >= 4_410 }
            XCTAssertGreaterThan(stretches.reduce(0) { $0 + $1.count }, 44_100, "\(quality): less than 1 s unreported to measure: \(account)")
            for (channel, expectedDecibels) in [(0, -20.0), (1, 0.0)] {
                // Rising zero crossings, interpolated: cycles over the time from the first to the last in each stretch.
                var cycles = 0, seconds = 0.0, energy = 0.0, count = 0
                for stretch in stretches {
                    let signal = stretch.map { Double(samples[$0 * 2 + channel]) }
                    var crossings: [Double] = []
                    for index in 1..<signal.count where signal[index - 1] < 0 && signal[index] >= 0 {
                        crossings.append(Double(index - 1) + signal[index - 1] / (signal[index - 1] - signal[index]))
                    }
                    if crossings.count > 1 {
                        cycles += crossings.count - 1
                        seconds += (crossings[crossings.count - 1] - crossings[0]) / 44_100
                    }
                    energy += signal.reduce(0) { $0 + $1 * $1 }
                    count += signal.count
                }
                XCTAssertEqual(Double(cycles) / seconds, 1_000, accuracy: 1.0, "\(quality), channel \(channel): still 1 kHz")
                let peakDecibels = 20 * log10((energy / Double(count)).squareRoot() * 2.0.squareRoot())
                XCTAssertEqual(peakDecibels, expectedDecibels, accuracy: 0.05, "\(quality), channel \(channel): at its level")
            }
            if !account.reportsNoTrouble { print("note: \(name): measured in \(stretches), away from \(account)") }
        }
    }
}
