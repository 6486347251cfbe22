import Foundation
import XCTest

/// liblo's `oscdump` listening on a free UDP port: the messages it printed, each with the time
/// it received it (its time tag).
final class OSCDump {
    struct Message {
        var time: Double
        var path: String
        var arguments: [String]
    }

    let port: Int
    private let process: Subprocess

    init() throws {
        port = try Self.freeUDPPort()
        process = try Subprocess(URL(fileURLWithPath: "/usr/bin/oscdump"), ["-L", "\(port)"], server: nil,
                                 directory: NSTemporaryDirectory())
        // oscdump says nothing when it listens: wait until the kernel lists the port as bound.
        let bound = String(format: ":%04X ", port)
        try JackTestCase.waitFor("oscdump on port \(port)") {
            ["/proc/net/udp", "/proc/net/udp6"].contains { ((try? String(contentsOfFile: $0, encoding: .utf8)) ?? "").contains(bound) }
                || !process.process.isRunning
        }
    }

    deinit { process.signal(SIGTERM) }

    /// Every message printed so far, in order.
    var messages: [Message] {
        process.output.split(separator: "\n").compactMap(Self.parse)
    }

    var count: Int { messages.count }

    func messages(after index: Int) -> ArraySlice<Message> {
        let all = messages
        return all[min(index, all.count)...]
    }

    /// Waits for a message on `path` after the first `index` whose arguments satisfy `match`.
    @discardableResult
    func expect(_ path: String, after index: Int, timeout: TimeInterval = 10, file: StaticString = #filePath,
                line: UInt = #line, _ match: ([String]) -> Bool) throws -> [String] {
        var found: [String]?
        do {
            try JackTestCase.waitFor("\(path) from jcap", timeout: timeout) {
                found = messages(after: index).first { $0.path == path && match($0.arguments) }?.arguments
                return found != nil
            }
        } catch {
            let seen = messages(after: index).suffix(30).map { "\($0.path) \($0.arguments)" }.joined(separator: "\n")
            XCTFail("no matching \(path); received:\n\(seen)", file: file, line: line)
            throw error
        }
        return found ?? []
    }

    /// `eeb01470.5bf1d81e /jcap/meter sff "A" -20.000000 -23.010000`: time tag, path, types, values.
    static func parse(_ line: Substring) -> Message? {
        var tokens: [String] = []
        var current = ""
        var quoted = false
        var inToken = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                inToken = true
            } else if character == " " && !quoted {
                if inToken { tokens.append(current) }
                current = ""
                inToken = false
            } else {
                current.append(character)
                inToken = true
            }
        }
        if inToken { tokens.append(current) }
        guard tokens.count >= 2 else { return nil }
        let tag = tokens[0].split(separator: ".")
        guard tag.count == 2, let seconds = UInt32(tag[0], radix: 16), let fraction = UInt32(tag[1], radix: 16) else { return nil }
        let arguments = tokens.count > 2 ? Array(tokens[3...]) : []
        return Message(time: Double(seconds) + Double(fraction) / 4_294_967_296, path: tokens[1], arguments: arguments)
    }

    /// A UDP port nothing listens on now.
    static func freeUDPPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard socket >= 0 else { throw TestFailure("no socket") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw TestFailure("no free UDP port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
