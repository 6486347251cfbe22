import Foundation
import Testing
@testable import JackCapture

/// `[remote]` in a session file: the browser remote's address, port and token.
@Suite("Session files: the [remote] table")
struct SessionFileRemoteTests {
    static let head = "[session]\nname = \"band\"\n\n[[track]]\nname = \"Kick\"\nsource = 1\n\n"

    static func refusal(_ text: String) -> String? {
        do {
            _ = try SessionDefinition.parse(text, path: "sessions/band.toml")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func noTableNoRemote() throws {
        #expect(try SessionDefinition.parse(Self.head, path: "band.toml").remote == nil)
    }

    @Test func portAddressAndToken() throws {
        let remote = try SessionDefinition.parse(Self.head + "[remote]\naddress = \"0.0.0.0\"\nport = 8080\ntoken = \"studio-b-2026\"\n",
                                                 path: "band.toml").remote
        #expect(remote == SessionRemote(address: "0.0.0.0", port: 8080, token: "studio-b-2026"))
        let portOnly = try SessionDefinition.parse(Self.head + "[remote]\nport = 9000\n", path: "band.toml").remote
        #expect(portOnly == SessionRemote(port: 9000))
    }

    @Test func mistakesAreNamedAtTheirLine() {
        #expect(Self.refusal(Self.head + "[remote]\naddress = \"0.0.0.0\"\n")
            == "sessions/band.toml:8: [remote]: port: missing: the port the browser remote listens on (port = 8080)")
        #expect(Self.refusal(Self.head + "[remote]\nport = \"8080\"\n")
            == "sessions/band.toml:9: [remote]: port: expected a port number (port = 8080), not a string (\"8080\")")
        #expect(Self.refusal(Self.head + "[remote]\nport = 70000\n")
            == "sessions/band.toml:9: [remote]: port: 70000 is not a port: 1 to 65535 (0: any free port)")
        #expect(Self.refusal(Self.head + "[remote]\nport = 80\naddress = \" \"\n")
            == "sessions/band.toml:10: [remote]: address: empty: leave address out to listen on 127.0.0.1 (this machine only)")
        #expect(Self.refusal(Self.head + "[remote]\nport = 80\npassword = \"x\"\n")?.hasPrefix("sessions/band.toml:10: [remote]: password: unknown key") == true)
        #expect(Self.refusal("remote = 8080\n" + Self.head)?.contains("remote: expected a [remote] table (port = 8080)") == true)
    }
}
