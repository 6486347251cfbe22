import Testing
@testable import JackCapture

@Suite("Connection looks: when a watcher reads its ports' connections again")
struct ConnectionLooksTests {
    @Test("it looks when the server reports a connection change, else every interval")
    func whenToLook() {
        let interval: UInt64 = 100_000_000
        var looks = ConnectionLooks(interval: interval)
        let due = [
            looks.isDue(connectionChanges: 0, now: 1_000),
            looks.isDue(connectionChanges: 0, now: 2_000),
            looks.isDue(connectionChanges: 1, now: 3_000),
            looks.isDue(connectionChanges: 1, now: 3_000 + interval - 1),
            looks.isDue(connectionChanges: 1, now: 3_000 + interval),
            looks.isDue(connectionChanges: 2, now: 3_000 + interval + 1),
        ]
        // The first time; not again at once; a change; not before the interval; the interval; a
        // change again at once.
        #expect(due == [true, false, true, false, true, true])
    }
}
