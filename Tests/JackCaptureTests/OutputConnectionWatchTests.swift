import Testing
@testable import JackCapture

@Suite("Output connection watch: a player's outputs that lost their last connection")
struct OutputConnectionWatchTests {
    @Test("an output that was connected and is not is lost once; one never connected is not")
    func lostConnections() {
        var watch = OutputConnectionWatch()
        let lost = [
            watch.lostConnections(now: [true, false, true]),
            watch.lostConnections(now: [false, false, true]),
            watch.lostConnections(now: [false, false, true]),
            watch.lostConnections(now: [true, true, false]),
            watch.lostConnections(now: [false, false, false]),
        ]
        // The first look loses nothing; a loss is told once; an output never connected loses nothing.
        #expect(lost == [[], [0], [], [2], [0, 1]])
    }

    @Test("it looks when the server reports a connection change, else every 100 ms")
    func whenToLook() {
        var watch = OutputConnectionWatch()
        let interval = OutputConnectionWatch.interval
        let looks = [
            watch.isDue(connectionChanges: 0, now: 1_000),
            watch.isDue(connectionChanges: 0, now: 2_000),
            watch.isDue(connectionChanges: 1, now: 3_000),
            watch.isDue(connectionChanges: 1, now: 3_000 + interval - 1),
            watch.isDue(connectionChanges: 1, now: 3_000 + interval),
        ]
        // The first time; not again at once; a change; not before the interval; the interval.
        #expect(looks == [true, false, true, false, true])
    }
}
