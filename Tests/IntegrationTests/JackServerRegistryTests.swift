import Foundation
import XCTest

/// A server killed with SIGKILL leaves its entry in JACK's registry; the tests' servers free such
/// entries before "Too many servers already active" would refuse every server after them.
final class JackServerRegistryTests: XCTestCase {
    func registeredNames() throws -> [String] {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: JackServerRegistry.path))
        return (0..<JackServerRegistry.servers).map { index in
            let start = JackServerRegistry.firstEntry + index * JackServerRegistry.entryLength + 4
            return String(decoding: bytes[start..<start + 257].prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    func testTheEntryOfAKilledServerIsFreed() throws {
        let server = try PrivateJackServer()
        XCTAssertTrue(try registeredNames().contains { $0.contains(server.name) }, "the layout read is JACK's")
        kill(server.processIdentifier, SIGKILL)
        server.stop()
        XCTAssertTrue(try registeredNames().contains { $0.contains(server.name) }, "SIGKILL left the entry")
        XCTAssertTrue(JackServerRegistry.freeDeadEntries().contains { $0.contains(server.name) })
        XCTAssertFalse(try registeredNames().contains { $0.contains(server.name) })

        // A server still running keeps its entry.
        let running = try PrivateJackServer()
        JackServerRegistry.freeDeadEntries()
        XCTAssertTrue(try registeredNames().contains { $0.contains(running.name) })
    }
}
