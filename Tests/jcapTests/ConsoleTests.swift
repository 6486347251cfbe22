import JackCapture
import Testing
@testable import jcap

@Suite("Console status lines")
struct ConsoleTests {
    @Test("plain status lines carry no escape codes; the position is a time, in frames too only with -v")
    func statusLine() {
        let line = Console.statusLine(MeterSnapshots.snapshot(channels: 3))
        #expect(!line.contains("\u{1B}"))
        #expect(line.hasPrefix("rec 00:01:23.000, buffer 3%, xruns 0, lost 0; peak dBFS: capture_1 -inf, capture_2 -45.5"))
        #expect(Console.statusLine(MeterSnapshots.snapshot(channels: 3), showsFrames: true)
            .hasPrefix("rec 00:01:23.000 3984000 frames, buffer 3%"))
    }

    @Test("jcap play's status line says play with the file's time; its header PLAY and the time left; its JSON state playing")
    func playing() {
        var snapshot = MeterSnapshots.snapshot(channels: 2)
        snapshot.state = .playing
        snapshot.elapsedFrames = 96_000
        snapshot.remainingFrames = 48_000
        #expect(Console.statusLine(snapshot).hasPrefix("play 00:00:02.000, buffer"))
        let header = MeterScreen(width: 120, height: 30).render(snapshot)[0]
        #expect(header.contains("▶ PLAY 00:00:02.000"))
        #expect(header.contains("left 00:00:01.000"))
        #expect(MeterJSONLine(snapshot).state == "playing")
    }

    @Test("a paused take's status line says PAUSED with the time recorded")
    func paused() {
        #expect(Console.statusLine(MeterSnapshots.paused()).hasPrefix("PAUSED at 00:00:02.000, buffer"))
    }
}

@Suite("The engineer's wording")
struct EngineerWordingTests {
    @Test("disk time as hours and minutes of recording; counts grouped")
    func wording() {
        #expect(recordingTimeText(seconds: 7_500) == "2 h 05 min")
        #expect(recordingTimeText(seconds: 2_700.9) == "45 min")
        #expect(recordingTimeText(seconds: 40) == "40 s")
        #expect(groupedDigits(255_354) == "255,354")
        #expect(groupedDigits(999) == "999")
        #expect(groupedDigits(1_000_000) == "1,000,000")
    }

    @Test("sources in one line: numbered runs folded into ranges")
    func sourceRanges() {
        let names = (1...6).map { "Signal \($0)" } + ["Pair L", "Pair R", "Vox"]
        let sources = (1...8).map { "sig:out_\($0)" } + ["system:capture_1"]
        #expect(SourceRanges.text(names: names, sources: sources)
            == "Signal 1..6 <- sig:out_1..6, Pair L <- sig:out_7, Pair R <- sig:out_8, Vox <- system:capture_1")
        #expect(SourceRanges.text(names: (1...64).map { "T\($0)" }, sources: (1...64).map { "sig:out_\($0)" })
            == "T1..64 <- sig:out_1..64")
        #expect(SourceRanges.text(names: ["A", "B"]) == "A, B")
    }

    @Test("xrun and loss positions as times, five and a count; peaks wrapped into rows")
    func summaryPieces() {
        #expect(Console.positions([48_000, 96_000], rate: 48_000, verbose: false) == "00:00:01.000, 00:00:02.000")
        #expect(Console.positions([48_000], rate: 48_000, verbose: true) == "00:00:01.000 (take frame 48000)")
        #expect(Console.positions((1...40).map { Int64($0) * 4_800 }, rate: 48_000, verbose: false).hasSuffix(", 00:00:00.500 and 35 more"))
        #expect(Console.wrapped(["Kick -3.0", "Snare +1.2", "Vox -inf"], width: 22) == ["Kick -3.0  Snare +1.2", "Vox -inf"])
    }

    @Test("a take's counts named, spans as times, peaks signed with silence as -inf")
    func recordSummaryPieces() {
        #expect(Console.count(255_354, "clipped sample") == "255,354 clipped samples")
        #expect(Console.count(1, "xrun") == "1 xrun")
        let spans = [LostSpan(position: 48_000, frames: 1_024)]
        #expect(Console.spans(spans, rate: 48_000, frames: false) == "00:00:01.000 for 00:00:00.021")
        #expect(Console.spans(spans, rate: 48_000, frames: true) == "00:00:01.000 (1024 frames at 48000)")
        let table = Console.peakTable([("out_1", 3), ("out_2", -12), ("out_3", -160), ("out_4", -200)])
        #expect(table == ["  peak dBFS: out_1 +3.0  out_2 -12.0  out_3 -inf  out_4 -inf"])
    }

    @Test("an overdub's outputs in one line; its latency in milliseconds, frames only with -v")
    func overdubPieces() {
        #expect(SourceRanges.text(names: (1...8).map { "dub-play:T\($0)" }, sources: (1...8).map { "system:playback_\($0)" }, arrow: " -> ")
            == "dub-play:T1..8 -> system:playback_1..8")
        #expect(Console.latencyText(300, rate: 48_000, verbose: false) == "6.3 ms")
        #expect(Console.latencyText(300, rate: 48_000, verbose: true) == "6.3 ms (300 frames)")
    }

    @Test("a take's events at their times in the take, no JACK frames")
    func eventsAsTimes() {
        #expect(Console.eventText(.paused(frameTime: 123_456, position: 48_000), sampleRate: 48_000) == "paused at 00:00:01.000")
        #expect(Console.eventText(.portDisconnected(channel: 1, source: "crashing:out_1", frameTime: 9, position: 72_000,
                                                    timing: .exact(uncertainFrames: 0)), sampleRate: 48_000)
            == "channel 2: crashing:out_1 disconnected at 00:00:01.500; recording silence")
        #expect(Console.eventText(.portDisconnected(channel: 1, source: "crashing:out_1", frameTime: 9, position: 72_000,
                                                    timing: .near), sampleRate: 48_000)
            == "channel 2: crashing:out_1 disconnected near 00:00:01.500; recording silence")
        #expect(Console.eventText(.portConnected(channel: 0, source: "system:capture_1", frameTime: 9, position: 48_000,
                                                 timing: .exact(uncertainFrames: 256)), sampleRate: 48_000)
            == "channel 1: system:capture_1 connected at 00:00:01.000; its first 256 frames may be that input's audio "
            + "from before (JACK fills a hardware input only while it is connected)")
        #expect(Console.eventText(.triggered(frameTime: 9, position: 4_800), sampleRate: 48_000) == "triggered, 00:00:00.100 into the take")
        #expect(Console.eventText(.xrun(frameTime: 9, position: 1), sampleRate: 48_000) == nil)
    }
}
