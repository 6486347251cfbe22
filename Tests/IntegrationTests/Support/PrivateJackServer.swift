import Foundation
import JackCapture
import XCTest

/// A named dummy JACK server of the test's own: started with a unique name, stopped by its PID.
final class PrivateJackServer {
    let name: String
    let sampleRate: Int
    let period: Int
    private var process = Process()
    private let capturePorts: Int
    private let portLimit: Int
    let logPath: String

    init(period: Int = 256, sampleRate: Int = 48_000, capturePorts: Int = 8, portLimit: Int = 1_024) throws {
        PrivateJackServer.stopOrphans()
        name = "\(PrivateJackServer.prefix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        self.sampleRate = sampleRate
        self.period = period
        self.capturePorts = capturePorts
        self.portLimit = portLimit
        logPath = NSTemporaryDirectory() + "/\(name).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        try start()
    }

    /// Starts the server again under the same name, as a studio's server comes back after it was
    /// stopped (`stop`): its clients reach it by that name.
    func restart() throws {
        stop()
        process = Process()
        try start()
    }

    private func start() throws {
        do {
            try launch()
        } catch let failure as TestFailure where failure.description.contains("Too many servers already active") {
            // Entries left by servers that died without unregistering (JackServerRegistry).
            guard !JackServerRegistry.freeDeadEntries().isEmpty else { throw failure }
            process = Process()
            try launch()
        }
    }

    private func launch() throws {
        process.executableURL = try Executables.system("jackd")
        let realtime = getuid() == 0 ? ["-R", "-P", "70"] : ["--no-realtime"]
        process.arguments = realtime + ["-n", name, "-p", "\(portLimit)", "-d", "dummy", "-r", "\(sampleRate)",
                                        "-p", "\(period)", "-C", "\(capturePorts)", "-P", "2"]
        let log = FileHandle(forWritingAtPath: logPath)
        _ = log?.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let client = try? JackClient(name: "probe", server: name) {
                client.close()
                return
            }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        stop()
        throw TestFailure("jackd '\(name)' did not start: \((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")")
    }

    /// The server's process.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Stops the server: SIGTERM to its PID, SIGKILL if it lingers, and then what jackd does
    /// when it stops by itself: JACK's metadata database goes (`forgetMetadata`).
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            Self.forgetMetadata()
        }
        process.waitUntilExit()
    }

    /// Deletes JACK's metadata database (/dev/shm/jack_db-UID, one Berkeley DB for every server
    /// of the user), as jackd itself does whenever one of them stops cleanly. A server killed
    /// with SIGKILL may hold a lock in it that nothing releases: every later server and client
    /// that touches it then waits forever (measured: jack_lsp and jackd's own shutdown).
    static func forgetMetadata() {
        try? FileManager.default.removeItem(atPath: "/dev/shm/jack_db-\(getuid())")
    }

    deinit { stop() }

    static let prefix = "jcaptest-"

    /// Stops, by PID, private servers whose test process died without stopping them (a crash
    /// skips tearDown): their names carry the PID of the process that started them.
    static func stopOrphans() {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return }
        for entry in entries {
            guard let pid = Int32(entry),
                  let command = try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8) else { continue }
            let arguments = command.split(separator: "\0").map(String.init)
            guard arguments.first?.hasSuffix("jackd") == true, let index = arguments.firstIndex(of: "-n"),
                  index + 1 < arguments.count, arguments[index + 1].hasPrefix(prefix) else { continue }
            let owner = arguments[index + 1].dropFirst(prefix.count).prefix { $0.isNumber }
            guard let ownerPID = Int32(owner), ownerPID != getpid(), kill(ownerPID, 0) != 0 else { continue }
            kill(pid, SIGTERM)
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The package's own executables, built next to the test bundle, and system ones from PATH.
enum Executables {
    static var buildFolder: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    static func built(_ name: String) throws -> URL {
        for folder in [buildFolder, buildFolder.deletingLastPathComponent()] {
            let url = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw TestFailure("\(name) is not built next to \(buildFolder.path)")
    }

    /// True when this test process (and so the package's programs built with it) runs under
    /// ThreadSanitizer: its runtime's entry point is linked in.
    static var builtWithThreadSanitizer: Bool {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
    }

    static func system(_ name: String) throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") + ["/usr/bin", "/usr/sbin"] {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        throw TestFailure("\(name) is not installed (run tools/setup)")
    }
}
