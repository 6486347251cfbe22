import Testing
@testable import JackCapture

@Suite("Channel lists, port patterns and natural order")
struct PortSelectionTests {
    @Test("channel lists", arguments: [
        ("1,2", [1, 2]), ("1-8,10", [1, 2, 3, 4, 5, 6, 7, 8, 10]), ("3", [3]), ("2-2", [2]),
        (" 1 , 3-4 ", [1, 3, 4]), ("10,1", [10, 1]),
    ])
    func channelLists(text: String, expected: [Int]) throws {
        #expect(try SourceSelection.parseChannelList(text) == expected)
    }

    @Test("bad channel lists", arguments: ["", "0", "1,,2", "a", "3-1", "1-", "-2", "1,1", "1-3,2", "1.5", "1-2-3"])
    func badChannelLists(text: String) {
        #expect(throws: CaptureError.self) { try SourceSelection.parseChannelList(text) }
    }

    static let physical = (1...12).map { "system:capture_\($0)" }.shuffled()
    static let outputs = physical + ["synth:out_10", "synth:out_2", "synth:out_1", "synth:aux", "drums:kick", "drums:snare"]

    @Test("channels are physical capture ports in natural order, 1-based")
    func channelsResolve() throws {
        let ports = try SourceSelection.channels([1, 2, 10]).resolve(
            physicalCapturePorts: Self.physical, outputPorts: Self.outputs)
        #expect(ports == ["system:capture_1", "system:capture_2", "system:capture_10"])
    }

    @Test("a channel the server lacks is an error naming how many it has")
    func missingChannel() {
        #expect(throws: CaptureError.noSuchChannel(13, available: 12)) {
            try SourceSelection.channels([1, 13]).resolve(physicalCapturePorts: Self.physical, outputPorts: Self.outputs)
        }
        #expect(throws: CaptureError.noSuchChannel(1, available: 0)) {
            try SourceSelection.channels([1]).resolve(physicalCapturePorts: [], outputPorts: [])
        }
    }

    @Test("globs match in natural order; patterns keep their order; duplicates are dropped")
    func patterns() throws {
        let ports = try SourceSelection.ports(["synth:out_*", "drums:*", "synth:out_2"]).resolve(
            physicalCapturePorts: Self.physical, outputPorts: Self.outputs)
        #expect(ports == ["synth:out_1", "synth:out_2", "synth:out_10", "drums:kick", "drums:snare"])
        #expect(PortPattern.matches("synth:out_?", in: Self.outputs) == ["synth:out_1", "synth:out_2"])
        #expect(PortPattern.matches("synth:out_[12]*", in: Self.outputs) == ["synth:out_1", "synth:out_2", "synth:out_10"])
        #expect(PortPattern.matches("drums:kick", in: Self.outputs) == ["drums:kick"])
        #expect(PortPattern.matches("drums:ki", in: Self.outputs) == [])
    }

    @Test("a pattern matching nothing is an error naming it")
    func noMatch() {
        #expect(throws: CaptureError.noPortMatches("bass:*")) {
            try SourceSelection.ports(["synth:*", "bass:*"]).resolve(physicalCapturePorts: [], outputPorts: Self.outputs)
        }
    }

    @Test("natural order")
    func naturalOrder() {
        let names = ["out_10", "out_2", "out_1", "out_02", "out_", "capture_9", "capture_10", "a10b2", "a10b10", "a9b99", "Z", "a"]
        #expect(names.sorted(by: NaturalOrder.areInIncreasingOrder)
            == ["Z", "a", "a9b99", "a10b2", "a10b10", "capture_9", "capture_10", "out_", "out_1", "out_2", "out_02", "out_10"])
        #expect(NaturalOrder.compare("x", "x") == 0)
        #expect(NaturalOrder.compare("out_99999999999999999999", "out_100000000000000000000") < 0)
    }
}
