import ArgumentParser
import Foundation
import JackCapture

/// `jcap ports`: the server's ports jcap can record from, so a person (or a program, with
/// `--json`) can choose `--port` and `--channels` values without jack_lsp.
struct PortsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ports",
        abstract: "List the JACK ports jcap can record from (physical capture ports first).",
        discussion: """
            One line a port: its name (what --port takes), its pretty name in quotes if it has \
            one, its aliases, its capture latency in frames and the ports it is connected to. \
            Physical ports come first, numbered as --channels counts them. On a NetJACK2 slave a \
            line on standard error says so first, with the link's network latency (docs/netjack.md).

            Exit status: 0 listed; 10 no JACK server; 18 JACK refused the client.
            """)

    @OptionGroup var jack: ServerOption

    @Flag(name: .long, help: "Print a JSON array for programs instead of lines.")
    var json = false

    func run() throws {
        let console = Console(display: MeterDisplay.none)
        let client: JackClient
        do {
            client = try JackClient(name: "jcap-ports", server: jack.server)
        } catch {
            throw console.fail(.jack(error))
        }
        defer { client.close() }
        let ports = InputPort.availableInputs(on: client)
        // On standard error: standard output stays one port a line (or the JSON array).
        if let slave = NetJackSlave.detect(on: client) { StandardStreams.writeError("jcap: this server is a " + slave.description + "\n") }
        if json {
            StandardStreams.writeOutput(PortsCommand.json(ports) + "\n")
        } else {
            for line in PortsCommand.lines(ports) { StandardStreams.writeOutput(line + "\n") }
        }
    }

    /// `system:capture_1  channel 1  alias dummy_pcm:dummy:out1  latency 1024 frames  -> jcap:in_1`;
    /// a pretty name follows the name in quotes, escaped like a Swift string literal so that
    /// quotes and line breaks in it cannot break the one line a port.
    static func lines(_ ports: [InputPort]) -> [String] {
        var physicalChannel = 0
        return ports.map { port in
            var fields = [port.name]
            if let prettyName = port.prettyName { fields.append(prettyName.debugDescription) }
            if port.isPhysical {
                physicalChannel += 1
                fields.append("channel \(physicalChannel)")
            }
            if !port.aliases.isEmpty {
                fields.append("alias\(port.aliases.count == 1 ? "" : "es") \(port.aliases.joined(separator: ", "))")
            }
            let latency = port.captureLatency
            let frames = latency.minimum == latency.maximum ? "\(latency.minimum)" : "\(latency.minimum)-\(latency.maximum)"
            fields.append("latency \(frames) frames")
            fields.append(port.connections.isEmpty ? "not connected" : "-> " + port.connections.joined(separator: ", "))
            return fields.joined(separator: "  ")
        }
    }

    /// `[{"aliases":[],"capture_latency":{"max":0,"min":0},"channel":null,"connections":[],
    /// "name":"sig:out_1","physical":false,"pretty_name":null}]`: every key always present, null
    /// where a port has no value.
    static func json(_ ports: [InputPort]) -> String {
        var physicalChannel = 0
        let entries = ports.map { port in
            if port.isPhysical { physicalChannel += 1 }
            return PortJSON(port, channel: port.isPhysical ? physicalChannel : nil)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(entries) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// One port in `jcap ports --json`.
struct PortJSON: Encodable {
    struct Latency: Encodable {
        let min: Int
        let max: Int
    }

    let name: String
    let pretty_name: String?
    let aliases: [String]
    let capture_latency: Latency
    let connections: [String]
    let physical: Bool
    /// The physical port's `--channels` number; null for other ports.
    let channel: Int?

    init(_ port: InputPort, channel: Int?) {
        name = port.name
        pretty_name = port.prettyName
        aliases = port.aliases
        capture_latency = Latency(min: port.captureLatency.minimum, max: port.captureLatency.maximum)
        connections = port.connections
        physical = port.isPhysical
        self.channel = channel
    }

    enum CodingKeys: String, CodingKey {
        case name, pretty_name, aliases, capture_latency, connections, physical, channel
    }

    /// Explicit nulls: a program reading the array finds every key on every port.
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(pretty_name, forKey: .pretty_name)
        try container.encode(aliases, forKey: .aliases)
        try container.encode(capture_latency, forKey: .capture_latency)
        try container.encode(connections, forKey: .connections)
        try container.encode(physical, forKey: .physical)
        try container.encode(channel, forKey: .channel)
    }
}
