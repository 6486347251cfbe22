import Foundation
import JackCapture
import Testing
@testable import jcap

@Suite("Pausing from the terminal and the console's PAUSED state")
struct PauseConsoleTests {
    @Test("space toggles pause; q, Q, Enter stop; other keys do nothing")
    func keys() {
        #expect(TerminalKeys.command(for: UInt8(ascii: " ")) == .togglePause)
        for key in ["q", "Q", "\n", "\r"] {
            #expect(TerminalKeys.command(for: key.utf8.first!) == .stop, "\(key.debugDescription)")
        }
        for key in ["p", "x", "\u{1B}", "s"] {
            #expect(TerminalKeys.command(for: key.utf8.first!) == nil, "\(key.debugDescription)")
        }
    }

    static func paused() -> MeterSnapshot {
        MeterSnapshot(state: .paused, sampleRate: 48_000, elapsedFrames: 96_000, remainingFrames: 48_000,
                      bufferFill: 0, xruns: 0, lostFrames: 0,
                      channels: [MeterSnapshot.Channel(name: "capture_1", reading: .silent)])
    }

    @Test("the screen, the status line and JSON say PAUSED with the time recorded")
    func pausedEverywhere() throws {
        let header = MeterScreen(width: 80, height: 24).render(Self.paused())[0]
        #expect(header.contains("PAUSED 00:00:02.000"), "\(header)")
        #expect(header.contains("left 00:00:01.000"), "\(header)")
        #expect(Console.statusLine(Self.paused()).hasPrefix("PAUSED at 00:00:02.000 96000 frames"))
        #expect(MeterJSONLine(Self.paused()).encoded().contains("\"state\":\"paused\""))
    }

    @Test("SIGUSR1 toggles pause: each one is counted once")
    func usr1() throws {
        let signals = ControlSignals(stop: [SIGUSR2], togglePause: SIGUSR1)
        usleep(100_000)  // the dispatch sources take a moment to start listening
        kill(getpid(), SIGUSR1)
        usleep(100_000)  // two signals pending at once would merge into one
        kill(getpid(), SIGUSR1)
        var toggles = 0
        for _ in 0..<100 where toggles < 2 {
            usleep(10_000)
            toggles += signals.takePauseToggles()
        }
        #expect(toggles == 2)
        #expect(signals.takePauseToggles() == 0)
        #expect(signals.stopSignal == nil)
    }
}
