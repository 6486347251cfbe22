import CJack
import Foundation
import XCTest
@testable import JackCapture
import jcap

/// Ports and their JACK metadata on a private server: the JackClient wrappers against what JACK's
/// own tools (jack_property) see, `InputPort.availableInputs` and `jcap ports`.
final class PortMetadataTests: JackTestCase {
    /// jack2 (1.9.21) keeps every server's metadata in one Berkeley DB per user
    /// (/dev/shm/jack_db-UID), opened when a process opens its first client, and deletes its files
    /// whenever any server of the user stops. A process that opened it before such a stop goes on
    /// writing to the deleted copy, which no other process (jack_property, jcap) sees, until its
    /// last client closes. Other test runs on this machine start and stop servers all the time, so
    /// this class keeps no client open between checks (the observer is closed once the test signal
    /// is up), and a check that another process does not see our properties is repeated with a
    /// fresh client, at most 3 times.
    override class func setUp() {
        super.setUp()
        observer?.close()
    }

    /// The test's own client, closed after each test: closing it unregisters its ports, which
    /// removes their metadata.
    var client: JackClient!

    override func tearDownWithError() throws {
        client?.close()
        client = nil
        try super.tearDownWithError()
    }

    /// Opens `client` (closing the one before, so that no client of this process is open and the
    /// metadata database is opened afresh) with one input port, `metatest:in`.
    @discardableResult
    func openClient() throws -> OpaquePointer {
        client?.close()
        client = try JackClient(name: "metatest", server: server.name)
        try client.activate()
        return try client.registerAudioInput(named: "in")
    }

    /// Runs `check` with a freshly opened client, again (at most 3 times in all) when it throws a
    /// `TestFailure`: another server stopped and took the metadata database with it (above).
    func withFreshMetadataDatabase(_ check: () throws -> Void) throws {
        for attempt in 1...3 {
            try openClient()
            do {
                return try check()
            } catch let failure as TestFailure where attempt < 3 {
                print("note: attempt \(attempt) of \(name): \(failure); repeating with a fresh client (jack2's shared metadata database)")
            }
        }
    }

    /// `jack_property -l` against this class's server: subject UUID to its lines
    /// `key: K value: V type: T`.
    func jackPropertyListing() throws -> [UInt64: [String]] {
        let listing = try Subprocess(try Executables.system("jack_property"), ["-l"], server: server.name,
                                     directory: directory)
        XCTAssertEqual(try listing.wait(timeout: 30), 0, listing.errorOutput)
        var subjects: [UInt64: [String]] = [:]
        var subject: UInt64?
        for line in listing.output.split(separator: "\n").map(String.init) {
            if let uuid = UInt64(line.trimmingCharacters(in: .whitespaces)) {
                subject = uuid
                subjects[uuid, default: []] = []
            } else if let subject {
                subjects[subject, default: []].append(line.trimmingCharacters(in: .whitespaces))
            }
        }
        return subjects
    }

    func testPrettyNameAndOrderAreWhatJackPropertyShows() throws {
        // Unique, so a property some other run left in the shared database cannot pass for ours.
        let prettyName = "Kick In \(UUID().uuidString.prefix(8)) & <more>"
        var port: OpaquePointer!
        var uuid: UInt64 = 0
        try withFreshMetadataDatabase {
            port = try client.registerAudioOutput(named: "kick")
            uuid = client.uuid(of: port)
            XCTAssertNotEqual(uuid, 0)
            try client.setPrettyName(prettyName, ofPort: port)
            try client.setOrder(7, ofPort: port)

            let lines = try jackPropertyListing()[uuid] ?? []
            let expected = [
                "key: \(JackClient.prettyNameKey) value: \(prettyName) type: text/plain",
                "key: \(JackClient.orderKey) value: 7 type: http://www.w3.org/2001/XMLSchema#integer",
            ]
            for line in expected where !lines.contains(line) {
                throw TestFailure("jack_property -l lists \(lines) for UUID \(uuid), not '\(line)'")
            }
            guard client.prettyName(ofPort: port) == prettyName, client.order(ofPort: port) == 7 else {
                throw TestFailure("read back \(String(describing: client.prettyName(ofPort: port))), \(String(describing: client.order(ofPort: port)))")
            }
        }
        XCTAssertEqual(JackClient.prettyNameKey, "http://jackaudio.org/metadata/pretty-name")
        XCTAssertEqual(JackClient.orderKey, "http://jackaudio.org/metadata/order")
        XCTAssertEqual(client.property(forKey: JackClient.orderKey, of: uuid),
                       JackProperty(value: "7", type: "http://www.w3.org/2001/XMLSchema#integer"))

        try client.removeProperty(forKey: JackClient.prettyNameKey, of: uuid)
        XCTAssertNil(client.prettyName(ofPort: port))
        XCTAssertNil(client.property(forKey: JackClient.prettyNameKey, of: uuid))
        XCTAssertEqual(client.order(ofPort: port), 7, "only the one key is removed")
        XCTAssertThrowsError(try client.removeProperty(forKey: JackClient.prettyNameKey, of: uuid)) {
            XCTAssertEqual($0 as? JackError, .propertyNotRemoved(key: JackClient.prettyNameKey, subject: uuid))
        }
        try client.removeProperty(forKey: JackClient.orderKey, of: uuid)
        XCTAssertNil(try jackPropertyListing()[uuid], "nothing left under the port's UUID")
    }

    func testAnyPropertyWithAndWithoutType() throws {
        try openClient()
        let uuid = client.uuid(of: try client.registerAudioOutput(named: "any"))
        let key = "urn:jcap:test:\(UUID().uuidString)"
        do {
            try client.setProperty("plain", forKey: key, on: uuid)
            guard let plain = client.property(forKey: key, of: uuid), plain.value == "plain" else {
                throw TestFailure("property not read back")
            }
            XCTAssertTrue(plain.type == nil || plain.type == "", "no type given: \(String(describing: plain.type))")
            try client.setProperty("{\"a\":1}", forKey: key, type: "application/json", on: uuid)
            guard client.property(forKey: key, of: uuid) == JackProperty(value: "{\"a\":1}", type: "application/json") else {
                throw TestFailure("replaced property not read back")
            }
        }
        try client.removeProperty(forKey: key, of: uuid)
        XCTAssertNil(client.property(forKey: key, of: uuid))
    }

    func testPortWrappersDescribeThePorts() throws {
        let input = try openClient()
        XCTAssertThrowsError(try client.port(named: "nosuch:port")) {
            XCTAssertEqual($0 as? JackError, .noSuchPort("nosuch:port"))
        }
        let capture = try client.port(named: "system:capture_1")
        XCTAssertTrue(client.isPhysical(capture))
        XCTAssertNotEqual(client.flags(of: capture).rawValue & JackPortIsOutput.rawValue, 0)
        XCTAssertFalse(client.aliases(of: capture).isEmpty, "the dummy driver names its ports (dummy_pcm:...)")
        XCTAssertEqual(client.captureLatency(of: capture), JackLatencyRange(minimum: server.period, maximum: server.period),
                       "the dummy driver's input latency is one period")

        let signal = try client.port(named: "sig:out_1")
        XCTAssertFalse(client.isPhysical(signal))
        XCTAssertEqual(client.aliases(of: signal), [])
        try client.connect("sig:out_1", to: "metatest:in")
        try client.connect("system:capture_1", to: "metatest:in")
        XCTAssertEqual(client.connections(of: signal), ["metatest:in"])
        XCTAssertEqual(Set(client.connections(of: input)), ["sig:out_1", "system:capture_1"])
        XCTAssertEqual(client.connections(of: try client.port(named: "sig:out_2")), [])
        XCTAssertEqual(client.fullName(of: try client.port(named: "metatest:in")), "metatest:in")
        // An alias names the port too (jack_port_by_name).
        let alias = try XCTUnwrap(client.aliases(of: capture).first)
        XCTAssertEqual(client.fullName(of: try client.port(named: alias)), "system:capture_1")
    }

    func testAvailableInputsArePhysicalFirstInNaturalOrder() throws {
        try openClient()
        try client.connect("sig:out_10", to: "metatest:in")
        let inputs = InputPort.availableInputs(on: client)
        let names = inputs.map(\.name)
        let physical = (1...8).map { "system:capture_\($0)" }
        XCTAssertEqual(Array(names.prefix(8)), physical)
        XCTAssertTrue(inputs.prefix(8).allSatisfy { $0.isPhysical && !$0.aliases.isEmpty })
        let signals = names.filter { $0.hasPrefix("sig:") }
        XCTAssertEqual(signals, (1...Self.signalChannels).map { "sig:out_\($0)" }, "out_2 before out_10")
        XCTAssertFalse(names.contains("metatest:in"), "inputs are JACK's output ports only")
        let tenth = try XCTUnwrap(inputs.first { $0.name == "sig:out_10" })
        XCTAssertEqual(tenth.connections, ["metatest:in"])
        XCTAssertFalse(tenth.isPhysical)
        XCTAssertEqual(inputs.first { $0.name == "system:capture_3" }?.captureLatency.maximum, server.period)
    }

    func testJcapPortsJSONListsEveryInputWithItsFields() throws {
        let prettyName = "Snare \(UUID().uuidString.prefix(8))"
        try withFreshMetadataDatabase {
            try client.connect("sig:out_3", to: "metatest:in")
            try client.setPrettyName(prettyName, ofPort: try client.port(named: "sig:out_2"))
            let jcap = try launchJcap(["ports", "--json"])
            XCTAssertEqual(try jcap.wait(timeout: 30), 0, jcap.errorOutput)
            XCTAssertEqual(jcap.errorOutput, "")
            let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(jcap.output.utf8)) as? [[String: Any]],
                                        jcap.output)
            let keys: Set = ["name", "pretty_name", "aliases", "capture_latency", "connections", "physical", "channel"]
            XCTAssertTrue(entries.allSatisfy { Set($0.keys) == keys }, "every key on every port: \(jcap.output)")
            let names = entries.compactMap { $0["name"] as? String }
            XCTAssertEqual(Array(names.prefix(8)), (1...8).map { "system:capture_\($0)" })
            XCTAssertEqual(entries.prefix(8).compactMap { $0["channel"] as? Int }, Array(1...8))
            let firstCapture = entries[0]
            XCTAssertEqual(firstCapture["physical"] as? Bool, true)
            XCTAssertEqual(firstCapture["capture_latency"] as? [String: Int], ["min": server.period, "max": server.period])
            XCTAssertFalse((firstCapture["aliases"] as? [String] ?? []).isEmpty)

            let signal = { (port: String) throws -> [String: Any] in
                try XCTUnwrap(entries.first { $0["name"] as? String == port }, "\(port) in \(names)")
            }
            let first = try signal("sig:out_1")
            XCTAssertEqual(first["physical"] as? Bool, false)
            XCTAssertTrue(first["channel"] is NSNull, "only physical ports have a channel number")
            XCTAssertEqual(first["aliases"] as? [String], [])
            XCTAssertEqual(first["connections"] as? [String], [])
            XCTAssertEqual(try signal("sig:out_3")["connections"] as? [String], ["metatest:in"])
            XCTAssertEqual(names.filter { $0.hasPrefix("sig:") }, (1...Self.signalChannels).map { "sig:out_\($0)" })
            guard try signal("sig:out_2")["pretty_name"] as? String == prettyName else {
                throw TestFailure("sig:out_2's pretty name is \(String(describing: try signal("sig:out_2")["pretty_name"]))")
            }
        }
        // The signal client's port outlives this test's client, and so would its property.
        try client.removeProperty(forKey: JackClient.prettyNameKey, of: client.uuid(of: try client.port(named: "sig:out_2")))
    }

    func testJcapPortsLines() throws {
        try openClient()
        try client.connect("sig:out_3", to: "metatest:in")
        let jcap = try launchJcap(["ports"])
        XCTAssertEqual(try jcap.wait(timeout: 30), 0, jcap.errorOutput)
        let lines = jcap.output.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 8 + Self.signalChannels, jcap.output)
        XCTAssertTrue(lines[0].hasPrefix("system:capture_1  channel 1  alias "), lines[0])
        XCTAssertTrue(lines[0].hasSuffix("  latency \(server.period) frames  not connected"), lines[0])
        XCTAssertEqual(lines[8], "sig:out_1  latency 0 frames  not connected")
        XCTAssertEqual(lines[10], "sig:out_3  latency 0 frames  -> metatest:in")
    }

    func testJcapPortsWithoutAServerFailsInOneLine() throws {
        let missing = "no-such-server-\(UUID().uuidString.prefix(8))"
        let jcap = try launchJcap(["ports", "--server", missing])
        XCTAssertEqual(try jcap.wait(timeout: 30), ExitStatus.noServer.rawValue, jcap.errorOutput)
        XCTAssertEqual(jcap.output, "")
        let lines = jcap.errorOutput.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, jcap.errorOutput)
        XCTAssertTrue(lines.first?.hasPrefix("jcap: error: no JACK server named '\(missing)' is running") == true,
                      jcap.errorOutput)
    }
}
