import Foundation
import Testing
@testable import jcap

@Suite("Control signals")
struct ControlSignalsTests {
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
