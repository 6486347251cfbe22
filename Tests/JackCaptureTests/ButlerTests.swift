import Atomics
import Foundation
import Testing
@testable import JackCapture

@Suite("Butler: the worker thread of a client's non-real-time side")
struct ButlerTests {
    @Test("the timed wait is a quarter period, between 1 and 10 ms")
    func idleWait() {
        #expect(Butler.idleWait(periodFrames: 1_024, sampleRate: 48_000) == .microseconds(5_333))
        #expect(Butler.idleWait(periodFrames: 256, sampleRate: 48_000) == .microseconds(1_333))
        #expect(Butler.idleWait(periodFrames: 64, sampleRate: 48_000) == .milliseconds(1), "never a spin")
        #expect(Butler.idleWait(periodFrames: 8_192, sampleRate: 44_100) == .milliseconds(10), "rings are looked at often")
        #expect(Butler.idleWait(periodFrames: 0, sampleRate: 48_000) == .milliseconds(10))
        #expect(Butler.idleWait(periodFrames: 1_024, sampleRate: 0) == .milliseconds(10))
    }

    @Test("stop() joins: once it returns, no round runs, and none runs again")
    func stopJoins() {
        let butler = Butler(name: "test butler", idleWait: .milliseconds(1))
        let rounds = ManagedAtomic(0)
        let inRound = ManagedAtomic(false)
        butler.start {
            inRound.store(true, ordering: .sequentiallyConsistent)
            usleep(2_000)
            rounds.wrappingIncrement(ordering: .sequentiallyConsistent)
            inRound.store(false, ordering: .sequentiallyConsistent)
            return .again
        }
        while rounds.load(ordering: .sequentiallyConsistent) < 3 { usleep(500) }
        butler.stop()
        let stillInRound = inRound.load(ordering: .sequentiallyConsistent)
        #expect(!stillInRound, "the round in progress finished before stop returned")
        let after = rounds.load(ordering: .sequentiallyConsistent)
        usleep(20_000)
        let later = rounds.load(ordering: .sequentiallyConsistent)
        #expect(later == after)
        butler.stop()
    }

    @Test("wake() runs the next round at once, without waiting out the timed wait")
    func wakeIsImmediate() {
        let butler = Butler(name: "test butler", idleWait: .seconds(10))
        let rounds = ManagedAtomic(0)
        butler.start {
            rounds.wrappingIncrement(ordering: .sequentiallyConsistent)
            return .idle
        }
        defer { butler.stop() }
        while rounds.load(ordering: .sequentiallyConsistent) < 1 { usleep(500) }
        let started = Date()
        butler.wake()
        while rounds.load(ordering: .sequentiallyConsistent) < 2 { usleep(500) }
        #expect(Date().timeIntervalSince(started) < 5, "woken, not timed out")
    }

    @Test("a final round runs after the stop; a round that is done ends the thread, and join() waits for it")
    func finalRoundAndDone() {
        let stopping = Butler(name: "test butler", idleWait: .milliseconds(1))
        let sawStop = ManagedAtomic(false)
        stopping.start(finalRound: true) {
            if stopping.isStopping { sawStop.store(true, ordering: .sequentiallyConsistent) }
            return .idle
        }
        stopping.stop()
        let finalRoundSawTheStop = sawStop.load(ordering: .sequentiallyConsistent)
        #expect(finalRoundSawTheStop)

        let once = Butler(name: "test butler", idleWait: .milliseconds(1))
        let rounds = ManagedAtomic(0)
        once.start {
            usleep(5_000)
            rounds.wrappingIncrement(ordering: .sequentiallyConsistent)
            return .done
        }
        once.join()
        let onceRounds = rounds.load(ordering: .sequentiallyConsistent)
        #expect(onceRounds == 1)
    }

    @Test("stop() from the butler's own round does not wait for itself")
    func stopFromItsOwnRound() {
        let butler = Butler(name: "test butler", idleWait: .milliseconds(1))
        let rounds = ManagedAtomic(0)
        butler.start {
            rounds.wrappingIncrement(ordering: .sequentiallyConsistent)
            butler.stop()
            return .again
        }
        butler.stop()
        let ownRounds = rounds.load(ordering: .sequentiallyConsistent)
        #expect(ownRounds <= 1)
    }

    @Test("what a round asks for at exit runs after that round has returned")
    func atExitRunsAfterTheLastRound() {
        let butler = Butler(name: "test butler", idleWait: .milliseconds(1))
        let inRound = ManagedAtomic(false)
        let ranInRound = ManagedAtomic(false)
        let ran = ManagedAtomic(false)
        butler.start {
            inRound.store(true, ordering: .sequentiallyConsistent)
            butler.atExit {
                ranInRound.store(inRound.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
                ran.store(true, ordering: .sequentiallyConsistent)
            }
            butler.stop()
            usleep(5_000)
            inRound.store(false, ordering: .sequentiallyConsistent)
            return .idle
        }
        while !ran.load(ordering: .sequentiallyConsistent) { usleep(500) }
        let duringTheRound = ranInRound.load(ordering: .sequentiallyConsistent)
        #expect(!duringTheRound)
    }
}
