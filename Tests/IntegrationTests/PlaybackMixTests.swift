import Foundation
import XCTest
@testable import JackCapture

/// `jcap play SESSION --take N --mix`: every track of a take summed onto one stereo pair, each
/// at its pan, recorded with jcap from the start frame and checked sample by sample.
final class PlaybackMixTests: JackTestCase {
    func writeSession() throws -> String {
        let session = path("mixing.toml")
        try """
            [session]
            name = "mixing"
            format = "wav"
            bit_depth = "float"

            [[track]]
            name = "Kick"
            source = "sig:out_1"
            pan = -0.5

            [[track]]
            name = "Bass"
            source = "sig:out_2"

            [[track]]
            name = "OH L"
            source = "sig:out_3"
            group = "overheads"
            pan = 0.25

            [[track]]
            name = "OH R"
            source = "sig:out_4"
            group = "overheads"
            """.write(toFile: session, atomically: true, encoding: .utf8)
        return session
    }

    /// Every channel of a file, de-interleaved.
    func readChannels(_ name: String) throws -> [[Float]] {
        let sound = try SoundFile.open(readingFrom: path(name))
        var samples = [Float](repeating: 0, count: Int(sound.frames) * sound.channels)
        let read = samples.withUnsafeMutableBufferPointer { sound.read(into: $0.baseAddress!, frames: Int(sound.frames)) }
        XCTAssertEqual(read, Int(sound.frames))
        return (0..<sound.channels).map { channel in (0..<read).map { samples[$0 * sound.channels + channel] } }
    }

    /// The mix as the player sums it: the files in order, each channel times its gain.
    static func expectedMix(_ files: [[[Float]]], pans: [Float], audible: Set<Int>? = nil, frames: Int) -> [[Float]] {
        var mix = PlaybackMix(pans: pans)
        if let audible { mix.soloed = audible }
        var outputs = [[Float]](repeating: [Float](repeating: 0, count: frames), count: 2)
        for (index, channels) in files.enumerated() {
            for output in 0..<2 {
                let gain = mix.gain(file: index, channels: channels.count, output: output, volume: 1)
                let source = channels.count == 1 ? channels[0] : channels[output]
                for frame in 0..<frames { outputs[output][frame] += source[frame] * gain }
            }
        }
        return outputs
    }

    func assertClose(_ actual: ArraySlice<Float>, _ expected: [Float], _ what: String, line: UInt = #line) {
        guard actual.count == expected.count else { return XCTFail("\(what): \(actual.count) samples, expected \(expected.count)", line: line) }
        let differing = zip(actual, expected).enumerated().filter { abs($0.element.0 - $0.element.1) > 1e-6 }
        if let first = differing.first {
            XCTFail("\(what): \(differing.count) samples differ, the first at \(first.offset): \(first.element.0) instead of \(first.element.1)",
                    line: line)
        }
    }

    func testATakeMixesToOneStereoPairAtEachTracksPan() throws {
        let session = try writeSession()
        let recording = try runJcap(["session", session, "--for", "24000f", "--meter", "none"])
        // The take the mix is made of: its status is the one its log entry calls for (an xrun in
        // it is reported there; the mix is compared with the files as they are).
        try assertStatusMatchesLog(recording, folder: path("mixing"))
        let files = try ["mixing/take-001-Kick.wav", "mixing/take-001-Bass.wav", "mixing/take-001-overheads.wav"].map(readChannels)
        XCTAssertEqual(files.map(\.count), [1, 1, 2])
        let expected = Self.expectedMix(files, pans: [-0.5, 0, 0.25], frames: 24_000)
        // The test signal differs from sample to sample, and the pans differ: a frame off, or a
        // track on the wrong side, shows.
        XCTAssertNotEqual(expected[0], expected[1])
        // Repeated on xruns: the mix played is compared frame for frame with a recording of it,
        // and the player reports no positions for what an xrun costs it.
        try withoutXruns {
            try? FileManager.default.removeItem(atPath: path("mixed.wav"))
            let start = FrameTime.advance(observer.estimatedFrameTime, by: 2 * server.sampleRate)
            let player = try launchJcap(["play", session, "--take", "1", "--mix", "--name", "plm", "--no-connect", "--at", "@\(start)"])
            try Self.waitFor("the mix's ports") { ["plm:mix_L", "plm:mix_R"].allSatisfy(observer.audioOutputPorts().contains) }
            XCTAssertFalse(observer.audioOutputPorts().contains("plm:Kick"), "no port of its own for a mixed track")
            let recorder = try launchJcap(["--port", "plm:mix_L", "--port", "plm:mix_R", "--at", "@\(FrameTime.advance(start, by: -500))",
                                           "--for", "25000f", "--format", "float", "-o", "mixed.wav"])
            XCTAssertEqual(try recorder.wait(timeout: 30), 0, recorder.errorOutput)
            XCTAssertEqual(try player.wait(timeout: 30), 0, player.errorOutput)
            let mixed = try readChannels("mixed.wav")
            for output in 0..<2 {
                let side = output == 0 ? "left" : "right"
                assertClose(mixed[output][0..<500], [Float](repeating: 0, count: 500), "\(side) before the start")
                assertClose(mixed[output][500..<24_500], expected[output], side)
                assertClose(mixed[output][24_500...], [Float](repeating: 0, count: 500), "\(side) after the end")
            }
        }
        let refused = try runJcap(["play", path("mixing/take-001-Kick.wav"), "--mix"])
        XCTAssertEqual(refused.status, 64, refused.errors)
        XCTAssertTrue(refused.errors.contains("--take N and a session file"), refused.errors)
    }

    /// The library's solo: soloing the bass leaves it alone in the mix.
    func testSoloAndMuteInTheLibrarysMix() throws {
        let session = try writeSession()
        let recording = try runJcap(["session", session, "--for", "12000f", "--meter", "none"])
        // The take the mix is made of: its status is the one its log entry calls for (an xrun in
        // it is reported there; the mix is compared with the files as they are).
        try assertStatusMatchesLog(recording, folder: path("mixing"))
        let names = ["mixing/take-001-Kick.wav", "mixing/take-001-Bass.wav", "mixing/take-001-overheads.wav"]
        let files = try names.map(readChannels)
        let soloBass = Self.expectedMix(files, pans: [-0.5, 0, 0.25], audible: [1], frames: 12_000)
        // Repeated on xruns: the mix played is compared frame for frame with a recording of it,
        // and the player reports no positions for what an xrun costs it.
        try withoutXruns {
            try? FileManager.default.removeItem(atPath: path("solo.wav"))
            let player = try Player(contentsOf: names.map { URL(fileURLWithPath: path($0)) })
            defer { player.close() }
            try player.prepareToPlay(clientName: "pls", server: server.name, outputs: .none,
                                     mix: PlaybackMix(pans: [-0.5, 0, 0.25]))
            player.setSoloed(true, file: 1)
            XCTAssertEqual(player.mix?.soloed, [1])
            let start = FrameTime.advance(observer.estimatedFrameTime, by: 2 * server.sampleRate)
            let recorder = try launchJcap(["--port", "pls:mix_L", "--port", "pls:mix_R", "--at", "@\(start)",
                                           "--for", "12000f", "--format", "float", "-o", "solo.wav"])
            try player.play(atFrame: start)
            XCTAssertEqual(try recorder.wait(timeout: 30), 0, recorder.errorOutput)
            let soloed = try readChannels("solo.wav")
            assertClose(soloed[0][...], soloBass[0], "left, bass soloed")
            assertClose(soloed[1][...], soloBass[1], "right, bass soloed")
        }
    }

    /// The keys of a mix, piped as a person types them: `s 2` solos the bass, then `2` mutes it
    /// too. The recording is the whole mix before, the bass alone after the solo, and silence
    /// after the mute (each checked away from the 10 ms ramps).
    func testDigitKeysMuteAndSoloTracksOfTheMix() throws {
        let session = try writeSession()
        let rate = server.sampleRate
        let frames = 3 * rate
        let recording = try runJcap(["session", session, "--for", "\(frames)f", "--meter", "none"])
        // The take the mix is made of: its status is the one its log entry calls for (an xrun in
        // it is reported there; the mix is compared with the files as they are).
        try assertStatusMatchesLog(recording, folder: path("mixing"))
        let files = try ["mixing/take-001-Kick.wav", "mixing/take-001-Bass.wav", "mixing/take-001-overheads.wav"].map(readChannels)
        let whole = Self.expectedMix(files, pans: [-0.5, 0, 0.25], frames: frames)
        let bassAlone = Self.expectedMix(files, pans: [-0.5, 0, 0.25], audible: [1], frames: frames)
        // Repeated on xruns: the mix played is compared frame for frame with a recording of it,
        // and the player reports no positions for what an xrun costs it.
        try withoutXruns {
            try? FileManager.default.removeItem(atPath: path("keyed.wav"))
            let start = FrameTime.advance(observer.estimatedFrameTime, by: 2 * rate)
            let keys = Pipe()
            let player = try Subprocess(try Executables.built("jcap"),
                                        ["play", session, "--take", "1", "--mix", "--name", "plk", "--no-connect", "--at", "@\(start)"],
                                        server: server.name, directory: directory, standardInput: keys.fileHandleForReading)
            try Self.waitFor("the mix's ports") { ["plk:mix_L", "plk:mix_R"].allSatisfy(observer.audioOutputPorts().contains) }
            let recorder = try launchJcap(["--port", "plk:mix_L", "--port", "plk:mix_R", "--at", "@\(start)",
                                           "--for", "\(frames)f", "--format", "float", "-o", "keyed.wav"])
            func press(_ text: String, at seconds: Double) {
                while FrameTime.distance(from: observer.estimatedFrameTime,
                                         to: FrameTime.advance(start, by: Int(seconds * Double(rate)))) > 0 {
                    usleep(5_000)
                }
                keys.fileHandleForWriting.write(Data(text.utf8))
            }
            press("s", at: 0.9)
            press("2", at: 1.0)
            press("2", at: 2.0)
            XCTAssertEqual(try recorder.wait(timeout: 30), 0, recorder.errorOutput)
            XCTAssertEqual(try player.wait(timeout: 30), 0, player.errorOutput)
            let keyed = try readChannels("keyed.wav")
            let before = 0..<(rate * 8 / 10)
            let soloed = (rate * 13 / 10)..<(rate * 19 / 10)
            let muted = (rate * 23 / 10)..<frames
            for output in 0..<2 {
                let side = output == 0 ? "left" : "right"
                assertClose(keyed[output][before], Array(whole[output][before]), "\(side), the whole mix")
                assertClose(keyed[output][soloed], Array(bassAlone[output][soloed]), "\(side), the bass soloed")
                assertClose(keyed[output][muted], [Float](repeating: 0, count: muted.count), "\(side), the soloed bass muted")
            }
        }
    }
}
