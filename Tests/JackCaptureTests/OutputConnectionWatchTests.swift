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
}
