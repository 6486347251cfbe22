import Foundation
import JackCapture
import Testing
@testable import jcap

@Suite("jcap ports output")
struct PortsCommandTests {
    static let ports = [
        InputPort(name: "system:capture_1", prettyName: "Kick \"In\"\nfront", aliases: ["alsa:cap_1", "hw:1"],
                  captureLatency: JackLatencyRange(minimum: 256, maximum: 512), connections: ["jcap:in_1", "meter:in"],
                  isPhysical: true),
        InputPort(name: "system:capture_2", captureLatency: JackLatencyRange(minimum: 256, maximum: 256), isPhysical: true),
        InputPort(name: "synth:out_1", aliases: ["fluid:l"]),
    ]

    @Test("one line a port: name, pretty name, channel, aliases, latency, connections")
    func lines() {
        #expect(PortsCommand.lines(Self.ports) == [
            "system:capture_1  \"Kick \\\"In\\\"\\nfront\"  channel 1  aliases alsa:cap_1, hw:1  latency 256-512 frames  -> jcap:in_1, meter:in",
            "system:capture_2  channel 2  latency 256 frames  not connected",
            "synth:out_1  alias fluid:l  latency 0 frames  not connected",
        ])
    }

    @Test("JSON: every key on every port, null where there is no value")
    func json() throws {
        let text = PortsCommand.json(Self.ports)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(entries.count == 3)
        #expect(entries.allSatisfy { Set($0.keys) == ["name", "pretty_name", "aliases", "capture_latency", "connections", "physical", "channel"] })
        #expect(entries[0]["pretty_name"] as? String == "Kick \"In\"\nfront")
        #expect(entries[0]["capture_latency"] as? [String: Int] == ["min": 256, "max": 512])
        #expect(entries[0]["connections"] as? [String] == ["jcap:in_1", "meter:in"])
        #expect(entries[1]["channel"] as? Int == 2)
        #expect(entries[1]["pretty_name"] is NSNull)
        #expect(entries[2]["channel"] is NSNull)
        #expect(entries[2]["physical"] as? Bool == false)
        #expect(!text.contains("\n"), "one line")
        #expect(PortsCommand.json([]) == "[]")
    }

    @Test("parses --server and --json")
    func arguments() throws {
        let command = try PortsCommand.parse(["--server", "studio", "--json"])
        #expect(command.jack.server == "studio")
        #expect(command.json)
        #expect(try Jcap.parseAsRoot(["ports"]) is PortsCommand)
    }
}
