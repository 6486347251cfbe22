import Testing
@testable import jcap

@Suite("Console status lines")
struct ConsoleTests {
    @Test("plain status lines carry no escape codes")
    func statusLine() {
        let line = Console.statusLine(MeterSnapshots.snapshot(channels: 3))
        #expect(!line.contains("\u{1B}"))
        #expect(line.hasPrefix("rec 00:01:23.000 3984000 frames, buffer 3%, xruns 0, lost 0; peak dBFS: capture_1 -inf, capture_2 -45.5"))
    }

    @Test("jcap play's status line says play with the file's time; its header PLAY and the time left; its JSON state playing")
    func playing() {
        var snapshot = MeterSnapshots.snapshot(channels: 2)
        snapshot.state = .playing
        snapshot.elapsedFrames = 96_000
        snapshot.remainingFrames = 48_000
        #expect(Console.statusLine(snapshot).hasPrefix("play 00:00:02.000 96000 frames"))
        let header = MeterScreen(width: 120, height: 30).render(snapshot)[0]
        #expect(header.contains("▶ PLAY 00:00:02.000"))
        #expect(header.contains("left 00:00:01.000"))
        #expect(MeterJSONLine(snapshot).state == "playing")
    }

    @Test("a paused take's status line says PAUSED with the time recorded")
    func paused() {
        #expect(Console.statusLine(MeterSnapshots.paused()).hasPrefix("PAUSED at 00:00:02.000 96000 frames"))
    }
}
