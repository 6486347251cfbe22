import Foundation
import XCTest
@testable import JackCapture

/// A program run on a pseudo-terminal of a given size, as a person runs it: standard input,
/// output and error are the terminal, keys are typed into it, and what it draws is read back
/// through a `TerminalEmulator`.
final class TerminalSession {
    let process = Process()
    private let master: Int32
    private let emulator: Locked<TerminalEmulator>
    private let reader: Thread

    init(_ executable: URL, _ arguments: [String], columns: Int, rows: Int, server: String, directory: String) throws {
        var master: Int32 = -1, slave: Int32 = -1
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw TestFailure("no pseudo-terminal") }
        self.master = master
        let emulator = Locked(TerminalEmulator(columns: columns, rows: rows))
        self.emulator = emulator
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        environment["JACK_DEFAULT_SERVER"] = server
        environment["TERM"] = "xterm"
        process.environment = environment
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.standardInput = terminal
        process.standardOutput = terminal
        process.standardError = terminal
        try process.run()
        // Only the program holds the terminal now: its end ends the reads below (EIO).
        try terminal.close()
        let terminalSide = master
        reader = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(terminalSide, &buffer, buffer.count)
                guard count > 0 else { break }
                pending += buffer[..<count]
                // Up to the last ASCII byte: never half a UTF-8 character.
                guard let end = pending.lastIndex(where: { $0 < 0x80 }) else { continue }
                let text = String(decoding: pending[...end], as: UTF8.self)
                pending.removeFirst(end + 1)
                emulator.withLock { $0.feed(text) }
            }
        }
        reader.start()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        close(master)
    }

    /// Types `keys` as a person would, one at a time.
    func type(_ keys: String) {
        for byte in keys.utf8 {
            var key = byte
            _ = write(master, &key, 1)
            usleep(30_000)
        }
    }

    /// The screen now, each line without trailing spaces.
    var screen: [String] { emulator.withLock { $0.screen } }

    /// Everything shown so far, lines scrolled off included.
    var transcript: String { emulator.withLock { $0.transcript } }

    /// Waits until the screen satisfies `condition`; fails with the screen as it was.
    func waitForScreen(_ what: String, timeout: TimeInterval = 15, _ condition: ([String]) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition(screen) {
            guard Date() < deadline else {
                throw TestFailure("timed out waiting for \(what); the screen:\n" + screen.joined(separator: "\n"))
            }
            usleep(20_000)
        }
    }

    /// Waits until the transcript contains `text`.
    func waitFor(_ text: String, timeout: TimeInterval = 15) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !transcript.contains(text) {
            guard Date() < deadline else {
                throw TestFailure("timed out waiting for '\(text)'; the terminal:\n" + transcript)
            }
            usleep(20_000)
        }
    }

    /// Waits for the program to exit; its status.
    @discardableResult
    func wait(timeout: TimeInterval = 30) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TestFailure("did not exit within \(timeout) s; the terminal:\n" + transcript)
        }
        process.waitUntilExit()
        // What it printed last reaches the reader after its exit.
        usleep(100_000)
        return process.terminationStatus
    }
}
