import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// Recorders on the master and on a slave started together: by the same wall-clock `--at`, and by
/// `--at @FRAME` with the slave given the master's frame less the link's offset D.
final class NetJackSynchronizedStartTests: NetJackTestCase {
    /// The same time of day on both hosts: the files start within the link's transit (a fraction
    /// of a period; a few to a few tens of frames here) and, shifted by the offset read from them,
    /// match sample for sample.
    func testSameWallClockStartOnMasterAndSlave() throws {
        try startLink(period: 1_024, channels: 8)
        try withoutXruns {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let at = formatter.string(from: Date().addingTimeInterval(3).rounded())
            let (master, slave) = try recordBoth(masterStart: at, slaveStart: at)
            let masterFirst = try firstFrameTime("master.wav"), slaveFirst = try firstFrameTime("slave.wav")
            XCTAssertEqual(masterFirst, Int(master.startFrame) % TestSignal.timeModulus, "the master's file is its own clock's")
            let offset = signalDistance(from: masterFirst, to: slaveFirst)
            XCTAssertLessThan(abs(offset), link.period / 2, "the slave's file starts \(offset) frames from the master's")
            try assertFilesMatch(shiftedBy: offset)
            XCTAssertTrue(slave.errors.contains("NetJACK2 slave"), slave.errors)
            print("note: same wall-clock start: the slave's file starts \(offset) frames after the master's (master frames)")
        }
    }

    /// `--at @F` on the master and `--at @(F - D)` on the slave, D the master's frame time less the
    /// slave's (a whole number of periods, read from any take of the master's signal on the
    /// slave): the two files are the same, sample for sample, from the first frame.
    func testFrameStartsLineUpToTheSampleWithTheLinkOffset() throws {
        try startLink(period: 1_024, channels: 8)
        try withoutXruns {
            let probe = try runJcap(["--channels", "1", "--for", "100ms", "--format", "float", "-o", "probe.wav", "--meter", "json"],
                                    server: link.slaves[0])
            XCTAssertEqual(probe.status, 0, probe.errors)
            let probeStart = try XCTUnwrap(number(after: "\"start_frame\":", in: probe.output))
            let linkOffset = signalDistance(from: Int(probeStart) % TestSignal.timeModulus, to: try firstFrameTime("probe.wav"))
            XCTAssertEqual(linkOffset % link.period, 0)
            let clock = try JackClient(name: "clock", server: link.master)
            let masterFrame = FrameTime.advance(clock.estimatedFrameTime, by: 3 * 48_000 + 357)
            clock.close()
            let slaveFrame = FrameTime.advance(masterFrame, by: -linkOffset)
            let (master, slave) = try recordBoth(masterStart: "@\(masterFrame)", slaveStart: "@\(slaveFrame)")
            XCTAssertEqual(master.startFrame, masterFrame)
            XCTAssertEqual(slave.startFrame, slaveFrame)
            XCTAssertEqual(try firstFrameTime("slave.wav"), try firstFrameTime("master.wav"))
            try assertFilesMatch(shiftedBy: 0)
        }
    }

    /// `--at @F` on both, the slave following the master's clock (`--master-clock`, from `jcap
    /// timecode` on the master over a spare link channel): no offset to measure or to give, and
    /// the two files are the same, sample for sample, from the first frame; the slave says the
    /// master's frame it started on.
    func testFrameStartsOnTheMastersClockLineUpToTheSample() throws {
        try startLink(period: 1_024, channels: 8, spareChannels: 1)
        let timecodePort = try startTimecode(onLinkChannel: 9)
        try withoutXruns {
            let clock = try JackClient(name: "clock", server: link.master)
            let masterFrame = FrameTime.advance(clock.estimatedFrameTime, by: 3 * 48_000 + 357)
            clock.close()
            let (master, slave) = try recordBoth(masterStart: "@\(masterFrame)", slaveStart: "@\(masterFrame)",
                                                 slaveOptions: ["--master-clock", timecodePort])
            XCTAssertEqual(master.startFrame, masterFrame)
            XCTAssertEqual(slave.masterStartFrame, masterFrame, slave.errors)
            XCTAssertNil(master.masterStartFrame)
            XCTAssertTrue(slave.errors.contains("following the master's clock"), slave.errors)
            XCTAssertEqual(try firstFrameTime("slave.wav"), try firstFrameTime("master.wav"))
            try assertFilesMatch(shiftedBy: 0)
            print("note: --master-clock: the slave started on its frame \(slave.startFrame), the master's \(masterFrame)")
        }
    }

    /// Records 2 s of channels 1-8 on both: the master's `sig:out_N`, the slave's `system:capture_N`.
    /// The two clients have names of their own: on one machine, JACK 2 names a client's socket in
    /// /dev/shm after the client alone, so two clients of one name opening at the same moment on
    /// two servers take each other's socket and both are refused.
    private func recordBoth(masterStart: String, slaveStart: String, slaveOptions: [String] = []) throws
        -> (master: (startFrame: UInt32, masterStartFrame: UInt32?, errors: String),
            slave: (startFrame: UInt32, masterStartFrame: UInt32?, errors: String)) {
        let common = ["--for", "2s", "--format", "float", "--meter", "json"]
        let master = try Subprocess(try Executables.built("jcap"),
                                    (1...8).flatMap { ["--port", "sig:out_\($0)"] } + ["--name", "rec-master", "--at", masterStart, "-o", "master.wav"] + common,
                                    server: link.master, directory: directory)
        let slave = try Subprocess(try Executables.built("jcap"),
                                   ["--channels", "1-8", "--name", "rec-slave", "--at", slaveStart, "-o", "slave.wav"] + slaveOptions + common,
                                   server: link.slaves[0], directory: directory)
        XCTAssertEqual(try master.wait(timeout: 30), 0, master.errorOutput)
        XCTAssertEqual(try slave.wait(timeout: 30), 0, slave.errorOutput)
        let masterStart = try XCTUnwrap(number(after: "\"start_frame\":", in: master.output), master.errorOutput)
        let slaveStart = try XCTUnwrap(number(after: "\"start_frame\":", in: slave.output), slave.errorOutput)
        let masterOnMaster = number(after: "\"master_start_frame\":", in: master.output).map(UInt32.init)
        let slaveOnMaster = number(after: "\"master_start_frame\":", in: slave.output).map(UInt32.init)
        return ((UInt32(masterStart), masterOnMaster, master.errorOutput), (UInt32(slaveStart), slaveOnMaster, slave.errorOutput))
    }

    /// Every sample of slave.wav at frame i equals master.wav's at frame i + offset, wherever both
    /// files have the frame (at least a second of it), and neither file is silent there.
    private func assertFilesMatch(shiftedBy offset: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let master = try samples("master.wav"), slave = try samples("slave.wav")
        let channels = 8
        let frames = min(master.count, slave.count) / channels
        var compared = 0, different = 0, silent = 0
        for frame in 0..<frames {
            let other = frame + offset
            guard other >= 0, other < frames else { continue }
            for channel in 0..<channels {
                let a = slave[frame * channels + channel], b = master[other * channels + channel]
                compared += 1
                if a != b { different += 1 }
                if a == 0 { silent += 1 }
            }
        }
        XCTAssertGreaterThan(compared, 48_000 * channels, file: file, line: line)
        XCTAssertEqual(different, 0, "of \(compared) samples compared at offset \(offset)", file: file, line: line)
        XCTAssertEqual(silent, 0, file: file, line: line)
    }

    private func samples(_ name: String) throws -> [Float] {
        let sound = try SoundFile.open(readingFrom: path(name))
        var all: [Float] = []
        var buffer = [Float](repeating: 0, count: 16_384 * sound.channels)
        while true {
            let read = buffer.withUnsafeMutableBufferPointer { sound.read(into: $0.baseAddress!, frames: 16_384) }
            if read <= 0 { break }
            all += buffer.prefix(read * sound.channels)
        }
        return all
    }

    func number(after prefix: String, in text: String) -> Int64? {
        guard let range = text.range(of: prefix, options: .backwards) else { return nil }
        return Int64(text[range.upperBound...].prefix { $0.isNumber })
    }
}

private extension Date {
    /// To the whole second, as a person would write a start time.
    func rounded() -> Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.up)) }
}
