import Foundation
import XCTest

/// A program run by a test, its output kept in files (a pipe could fill up and stall it).
final class Subprocess {
    let process = Process()
    let outputPath: String
    let errorPath: String

    init(_ executable: URL, _ arguments: [String], server: String?, directory: String,
         standardInput: FileHandle = FileHandle.nullDevice,
         environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let id = UUID().uuidString
        outputPath = NSTemporaryDirectory() + "/jcaptest-\(id).out"
        errorPath = NSTemporaryDirectory() + "/jcaptest-\(id).err"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = environment
        if let server { environment["JACK_DEFAULT_SERVER"] = server }
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        process.standardInput = standardInput
        try process.run()
    }

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    var errorOutput: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }
    var pid: Int32 { process.processIdentifier }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the program to exit (at most `timeout` seconds, then kills it and fails).
    @discardableResult
    func wait(timeout: TimeInterval = 60) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            let stacks = Self.threadStacks(of: process.processIdentifier)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let output = self.output
            throw TestFailure("\(process.executableURL!.lastPathComponent) did not exit within \(timeout) s; stderr: \(errorOutput)"
                + (output.isEmpty ? "" : "; stdout: \(output.suffix(2_000))") + "; its threads: \(stacks)")
        }
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// Every thread's stack of process `pid` (gdb, attached for a moment), for a program that
    /// hangs: where it waits, named in the failure. "no gdb" where there is none.
    static func threadStacks(of pid: Int32) -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") else { return "no gdb to show them" }
        let gdb = Process()
        gdb.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        gdb.arguments = ["30", "/usr/bin/gdb", "-p", String(pid), "-batch", "-nx", "-ex", "thread apply all bt 30"]
        let path = NSTemporaryDirectory() + "/jcaptest-stacks-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: path) }
        gdb.standardOutput = FileHandle(forWritingAtPath: path)
        gdb.standardError = FileHandle.nullDevice
        guard (try? gdb.run()) != nil else { return "gdb did not start" }
        gdb.waitUntilExit()
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        // The frames, not gdb's chatter about loading symbols.
        return text.split(separator: "\n").filter { $0.hasPrefix("#") || $0.hasPrefix("Thread ") }.joined(separator: "\n")
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: outputPath)
        try? FileManager.default.removeItem(atPath: errorPath)
    }
}
