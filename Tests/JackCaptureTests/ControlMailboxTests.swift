import Foundation
import Testing
@testable import JackCapture

@Suite("Control mailbox")
struct ControlMailboxTests {
    @Test func commandsArriveInOrderOnThePollingThread() {
        let mailbox = ControlMailbox()
        #expect(mailbox.post(.record))
        #expect(mailbox.post(.arm(track: "Kick")))
        #expect(mailbox.post(.mark(take: 3, .circled)))
        var carried: [ControlCommand] = []
        #expect(mailbox.apply { carried.append($0); return nil } == 3)
        #expect(carried == [.record, .arm(track: "Kick"), .mark(take: 3, .circled)])
        #expect(mailbox.apply { _ in Issue.record("applied twice"); return nil } == 0)
    }

    @Test func aFullQueueRefusesAndCounts() {
        let mailbox = ControlMailbox(commandCapacity: 4)
        for _ in 0..<4 { #expect(mailbox.post(.togglePause)) }
        #expect(!mailbox.post(.record))
        #expect(!mailbox.post(.record))
        #expect(mailbox.refusedCommands == 2)
        var carried: [ControlCommand] = []
        _ = mailbox.apply { carried.append($0); return nil }
        #expect(carried == Array(repeating: .togglePause, count: 4))
        #expect(mailbox.post(.record))
    }

    @Test func manyThreadsPostingLoseNothingUnderTheCapacity() async {
        let mailbox = ControlMailbox(commandCapacity: 10_000)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for index in 0..<500 { mailbox.post(.note(take: thread, text: "\(index)")) }
                }
            }
        }
        var carried: [ControlCommand] = []
        _ = mailbox.apply { carried.append($0); return nil }
        #expect(carried.count == 4_000)
        // Each thread's commands keep their order.
        for thread in 0..<8 {
            let texts = carried.compactMap { command -> String? in
                if case .note(thread, let text) = command { return text }
                return nil
            }
            #expect(texts == (0..<500).map { "\($0)" })
        }
    }

    @Test func stateIsTheLatestWithARevision() {
        let mailbox = ControlMailbox(publishInterval: 1)
        #expect(mailbox.latest().revision == 0)
        #expect(mailbox.latest().state == nil)
        let start = Date()
        #expect(mailbox.isDue(now: start))
        var state = ControlState(mode: .ready, sampleRate: 48_000)
        mailbox.publish(state, now: start)
        #expect(!mailbox.isDue(now: start.addingTimeInterval(0.5)))
        #expect(mailbox.isDue(now: start.addingTimeInterval(1)))
        state.mode = .recording
        mailbox.publish(state, now: start.addingTimeInterval(1))
        let latest = mailbox.latest()
        #expect(latest.revision == 2)
        #expect(latest.state?.mode == .recording)
    }

    @Test func anEventMakesTheStateDueAtOnce() {
        let mailbox = ControlMailbox(publishInterval: 10)
        let now = Date()
        mailbox.publish(ControlState(mode: .ready, sampleRate: 48_000), now: now)
        #expect(!mailbox.isDue(now: now))
        mailbox.observe([.noteSet(take: 1)])
        #expect(mailbox.isDue(now: now))
    }

    @Test func eventsAreARingThatForgetsTheOldest() {
        let mailbox = ControlMailbox(eventCapacity: 3)
        #expect(mailbox.events(after: 0).events.isEmpty)
        mailbox.observe([.noteSet(take: 1), .noteSet(take: 2)])
        var read = mailbox.events(after: 0)
        #expect(read.events.map(\.sequence) == [1, 2])
        #expect(!read.missed)
        mailbox.observe([.noteSet(take: 3), .noteSet(take: 4), .noteSet(take: 5)])
        read = mailbox.events(after: 2)
        #expect(read.events.map(\.sequence) == [3, 4, 5])
        #expect(!read.missed)
        read = mailbox.events(after: 0)
        #expect(read.events.map(\.sequence) == [3, 4, 5])
        #expect(read.missed)
        #expect(mailbox.events(after: 5).events.isEmpty)
        #expect(mailbox.lastEventSequence == 5)
    }
}
