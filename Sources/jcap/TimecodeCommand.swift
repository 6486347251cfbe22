import ArgumentParser
import Foundation
import JackCapture

/// `jcap timecode`: the master side of `--master-clock`. A `TimecodeWriter` writes the server's
/// frame time on its port until a signal stops it or the server goes.
struct TimecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timecode",
        abstract: "Write the master's frame time on a JACK port, for recorders on NetJACK2 slaves (--master-clock).",
        discussion: """
            Registers one output port, out, and writes on it every frame's own JACK frame time, \
            as an exact code (at -24 dBFS at most: not a signal to listen to). On a NetJACK2 \
            master, connect it to a spare input of a slave's link (--connect \
            slave1:to_slave_9); on the slave, 'jcap --master-clock system:capture_9 ...' then \
            knows which of the master's frames each frame it records is, across the link's \
            offset and the master's xruns. Runs until Ctrl-C or SIGTERM.

            Exit status: 0 stopped by Ctrl-C or SIGTERM; 5 the JACK server shut down; 10 no \
            JACK server; 11 no input port matches a --connect; 18 JACK refused the client, the \
            port, a connection or the activation; 64 a bad option.
            """)

    @Option(name: .long, help: "JACK client name, 1 to 63 bytes without ':' (made unique by the server if taken).")
    var name = "jcap-timecode"

    @OptionGroup var jack: ServerOption

    @Option(name: .long, help: ArgumentHelp("An input port to connect out to: exact name or glob (slave1:to_slave_9). Repeatable.", valueName: "port"))
    var connect: [String] = []

    func run() throws {
        let console = Console(display: MeterDisplay.none)
        let status: ExitStatus
        do {
            status = try writeTimecode(console)
        } catch {
            throw console.fail(error)
        }
        if status != .success { throw ExitCode(status.rawValue) }
    }

    private func writeTimecode(_ console: Console) throws -> ExitStatus {
        try ClientNameOption.check(name)
        // Before the client opens: a stop signal from then on ends the run cleanly.
        let signals = ControlSignals()
        let writer = try TimecodeWriter(clientName: name, server: jack.server)
        defer { writer.close() }
        let destinations: [String]
        do {
            destinations = try writer.connect(to: connect)
        } catch {
            if case .noInputPortMatches(let pattern) = error {
                throw CommandLineError.refusedValue(flag: "--connect", value: pattern, error)
            }
            throw error
        }
        console.line(Self.banner(port: writer.portName, destinations: destinations))
        while signals.stopSignal == nil {
            if writer.serverGone {
                console.line("jcap: error: the JACK server shut down; no timecode goes out any more")
                return .serverShutDown
            }
            usleep(20_000)
        }
        return .success
    }

    /// `jcap timecode: the master's frame time on jcap-timecode:out -> slave1:to_slave_9 (on the
    /// slave: jcap --master-clock system:capture_9 ...)`: where it goes and how a slave reads it.
    static func banner(port: String, destinations: [String]) -> String {
        let slavePorts = Set(destinations.map(slaveCapturePort(for:)))
        let reader: String
        if slavePorts.count == 1, let slavePort = slavePorts.first, let slavePort {
            reader = "on \(destinations.count == 1 ? "the" : "each") slave: jcap --master-clock \(slavePort) ..."
        } else {
            reader = "on the slave: jcap --master-clock PORT ..., PORT the slave's capture port it arrives on"
        }
        if destinations.isEmpty {
            return "jcap timecode: the master's frame time on \(port), not connected "
                + "(patch it to a slave's to_slave_N input; on the slave: jcap --master-clock system:capture_N ...)"
        }
        return "jcap timecode: the master's frame time on \(port) -> \(destinations.joined(separator: ", ")) (\(reader))"
    }

    /// The port a NetJACK2 slave receives what its master sends to `destination` on: the master's
    /// `slave1:to_slave_9` arrives on the slave's `system:capture_9`; nil for any other port.
    static func slaveCapturePort(for destination: String) -> String? {
        guard let colon = destination.lastIndex(of: ":") else { return nil }
        let shortName = destination[destination.index(after: colon)...]
        guard shortName.hasPrefix("to_slave_"), let channel = Int(shortName.dropFirst("to_slave_".count)), channel > 0 else {
            return nil
        }
        return "system:capture_\(channel)"
    }
}
