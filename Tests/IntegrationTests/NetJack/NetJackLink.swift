import Foundation
import XCTest

/// A NetJACK2 master and slaves of a test's own, started by `tools/netjack` (each slave in a
/// network namespace of its own, joined by a veth to the master's; on loopback where namespaces
/// are refused) and stopped by it, by PID, when the test is done.
///
/// The servers are reached by name from the test's own namespace: JACK clients talk to jackd over
/// UNIX sockets in /dev/shm, which network namespaces do not isolate.
final class NetJackLink {
    let name: String
    let master: String
    let slaves: [String]
    let period: Int
    let channels: Int
    let latencyCycles: Int
    let usesNamespaces: Bool
    private var running = true

    init(period: Int, channels: Int, slaves slaveCount: Int = 1, latencyCycles: Int = 2) throws {
        NetJackLink.stopOrphans()
        // Entries of servers that died unregistered (a crashed slave) would refuse a ninth server.
        JackServerRegistry.freeDeadEntries()
        self.period = period
        self.channels = channels
        self.latencyCycles = latencyCycles
        let common = ["--slaves", "\(slaveCount)", "--period", "\(period)", "--channels", "\(channels)",
                      "--latency", "\(latencyCycles)"]
        // Namespaces need root (CAP_SYS_ADMIN); loopback carries one slave.
        var namespaced = getuid() == 0 || slaveCount > 1
        var attempt = NetJackLink.start(common, namespaced: namespaced)
        if attempt.result.status != 0 {
            // A start whose namespaces were made failed on a server (a start is bounded to 60 s,
            // then stopped): once more on a new setup, the same way. One whose namespaces were
            // refused runs on loopback, where one slave can.
            let namespacesWork = attempt.steps.contains("namespaces made")
            print("note: tools/netjack start failed (\(attempt.result.status)): \(attempt.result.output)\n"
                + "its steps:\n\(attempt.steps)\n"
                + (namespaced && !namespacesWork ? "starting on loopback" : "starting a new setup"))
            if namespaced && !namespacesWork && slaveCount == 1 { namespaced = false }
            attempt = NetJackLink.start(common, namespaced: namespaced)
        }
        name = attempt.name
        usesNamespaces = namespaced
        let result = attempt.result
        guard result.status == 0 else {
            throw TestFailure("tools/netjack start failed (\(result.status)): \(result.output)\nits steps:\n\(attempt.steps)")
        }
        let lines = result.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        guard let masterLine = lines.first(where: { $0.first == "master" }), masterLine.count >= 2 else {
            throw TestFailure("tools/netjack printed no master: \(result.output)")
        }
        master = masterLine[1]
        slaves = lines.filter { $0.first == "slave" && $0.count >= 2 }.map { $0[1] }
        guard slaves.count == slaveCount else { throw TestFailure("tools/netjack printed \(slaves.count) slaves: \(result.output)") }
    }

    /// Takes slave `slave`'s link down for `milliseconds` and brings it back (`tools/netjack drop`).
    func drop(slave: Int = 1, milliseconds: Int, end: String = "master") throws {
        let result = try NetJackLink.tool(["drop", name, "--slave", "\(slave)", "--ms", "\(milliseconds)", "--end", end])
        guard result.status == 0 else { throw TestFailure("tools/netjack drop failed: \(result.output)") }
    }

    /// Stops the master's jackd for `milliseconds` and lets it go on (`tools/netjack stall`).
    func stallMaster(milliseconds: Int) throws {
        let result = try NetJackLink.tool(["stall", name, "--ms", "\(milliseconds)"])
        guard result.status == 0 else { throw TestFailure("tools/netjack stall failed: \(result.output)") }
    }

    /// Stops the master's jackd and starts it again at `rate` (`tools/netjack restart-master`):
    /// the slaves take on the new rate, a sample-rate change their clients are told of.
    func restartMaster(rate: Int) throws {
        let result = try NetJackLink.tool(["restart-master", name, "--rate", "\(rate)"])
        guard result.status == 0 else { throw TestFailure("tools/netjack restart-master failed: \(result.output)") }
    }

    func stop() {
        guard running else { return }
        running = false
        _ = try? NetJackLink.tool(["stop", name])
    }

    deinit { stop() }

    static let prefix = "jcapnj-"

    /// Starts a setup under a new name; what the tool said, and the steps it logged (a start
    /// that failed or hung is stopped, nothing of it left running).
    private static func start(_ arguments: [String], namespaced: Bool)
        -> (name: String, result: (status: Int32, output: String), steps: String) {
        let name = "\(prefix)\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
        let stepsPath = NSTemporaryDirectory() + "/jcap-netjack-\(name)/steps"
        var result: (status: Int32, output: String)
        do {
            result = try tool(["start", name] + arguments + (namespaced ? [] : ["--loopback"]))
        } catch {
            result = (-1, "\(error)")
        }
        let steps = (try? String(contentsOfFile: stepsPath, encoding: .utf8)) ?? ""
        if result.status != 0 { _ = try? tool(["stop", name]) }
        return (name, result, steps)
    }

    /// The repository's root, from this file's place in it.
    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Runs tools/netjack; its status and its standard output and error together. (Output goes
    /// to files, as `Subprocess` keeps it: the servers the tool starts outlive it.)
    static func tool(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let run = try Subprocess(repository.appendingPathComponent("tools/netjack"), arguments, server: nil,
                                 directory: NSTemporaryDirectory())
        let status = try run.wait(timeout: 90)
        return (status, run.output + run.errorOutput)
    }

    /// Stops setups whose test process died without stopping them: their names carry its PID.
    static func stopOrphans() {
        let folder = NSTemporaryDirectory()
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for entry in entries where entry.hasPrefix("jcap-netjack-" + prefix) {
            let name = String(entry.dropFirst("jcap-netjack-".count))
            let owner = name.dropFirst(prefix.count).prefix { $0.isNumber }
            guard let pid = Int32(owner), pid != getpid(), kill(pid, 0) != 0 else { continue }
            _ = try? tool(["stop", name])
        }
    }
}
