import CJack
import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal

/// jcap under the real nsmd (new-session-manager), driven as its GUIs drive it: server-control
/// messages sent with liblo's oscsend: add, save, close, open, open a
/// copy of the session (a switch), quit. Debian bookworm packages no nsmd, so this runs where one is
/// on PATH (Debian trixie's new-session-manager, or built from its source: docs/remote.md) and
/// is skipped elsewhere (`JCAPTEST_NSMD=/path/to/nsmd` names one off PATH); `NSMClientTests` tests the protocol against the API document everywhere.
final class NSMDaemonTests: JackTestCase {
    func oscsend(_ port: Int, _ path: String, _ arguments: String...) throws {
        let send = try Subprocess(try Executables.system("oscsend"), ["localhost", "\(port)", path] + arguments,
                                  server: nil, directory: directory)
        XCTAssertEqual(try send.wait(timeout: 10), 0, send.errorOutput)
    }

    /// A UDP port free now (the kernel's pick, let go at once).
    static func freeUDPPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("no socket") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw TestFailure("cannot bind a UDP socket") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The jcap clients nsmd's session holds: their folders under the session.
    func clientFolders(_ session: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: session)) ?? []).filter { $0.hasPrefix("jcap.n") }.sorted()
    }

    func testNsmdAddsSavesClosesReopensAndSwitchesJcap() throws {
        let nsmdPath: URL
        if let given = ProcessInfo.processInfo.environment["JCAPTEST_NSMD"] {
            nsmdPath = URL(fileURLWithPath: given)
        } else {
            do { nsmdPath = try Executables.system("nsmd") } catch {
                throw XCTSkip("nsmd is not installed (Debian bookworm has no package; JCAPTEST_NSMD=path names one)")
            }
        }
        let root = path("NSM Sessions")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        // nsmd starts clients by name: this build's jcap first.
        environment["PATH"] = try Executables.built("jcap").deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        // nsmd's own "NSM_URL=" line sits in its stdio buffer when that is a file: a port of ours.
        let port = try Self.freeUDPPort()
        let nsmd = try Subprocess(nsmdPath, ["--session-root", root, "--osc-port", "\(port)"], server: server.name,
                                  directory: directory, environment: environment)
        try Self.waitFor("nsmd's OSC port") { nsmd.errorOutput.contains("Using OSC port \(port)") || !nsmd.process.isRunning }
        let log = { nsmd.output + nsmd.errorOutput }
        // What nsmd said (its log is the record of every reply), without jcap's status lines.
        defer { print("nsmd's log:\n" + log().split(separator: "\n").filter { !$0.hasPrefix("session jcap") }.joined(separator: "\n")) }
        let session = root + "/band"

        // nsmd launches `jcap` (X-NSM-Exec): the default session, named by its client id.
        try oscsend(port, "/nsm/server/new", "s", "band")
        try oscsend(port, "/nsm/server/add", "s", "jcap")
        try Self.waitFor("nsmd's jcap open", timeout: 30) { log().contains("replied with: session 'band' open: 2 tracks, 2 armed") }
        let launched = try XCTUnwrap(clientFolders(session).first, log())
        XCTAssertNotNil(try? observer.port(named: launched + ":In 1"), log())

        // A jcap started by hand on a template joins the session; its keys come from a pipe.
        let template = path("vocals.toml")
        try "[session]\nname = \"vocals\"\nbit_depth = \"float\"\n\n[[track]]\nname = \"Vox\"\nsource = \"sig:out_1\"\n\n[[track]]\nname = \"Gtr\"\nsource = \"sig:out_2\"\narm = false\n"
            .write(toFile: template, atomically: true, encoding: .utf8)
        let keys = Pipe()
        environment["NSM_URL"] = "osc.udp://localhost:\(port)/"
        let byHand = try Subprocess(try Executables.built("jcap"), ["session", template], server: server.name, directory: directory,
                                    standardInput: keys.fileHandleForReading, environment: environment)
        try Self.waitFor("the second jcap open", timeout: 30) { log().contains("replied with: session 'band' open: 2 tracks, 1 armed") }
        let joined = try XCTUnwrap(clientFolders(session).first { $0 != launched }, log())
        keys.fileHandleForWriting.write(Data("r".utf8))
        try Self.waitFor("take 1 recording") { (try? TakeLog(folder: session + "/" + joined).entries().isEmpty) == false }
        usleep(500_000)
        keys.fileHandleForWriting.write(Data("s".utf8))
        try Self.waitFor("take 1 logged") { (try? TakeLog(folder: session + "/" + joined).entries().first?.status) != .recording }

        // Save: every client replies and is clean; the files say what is armed.
        try oscsend(port, "/nsm/server/save")
        try Self.waitFor("both saved") { log().components(separatedBy: "replied with: saved session.toml").count == 3 }
        XCTAssertEqual(log().components(separatedBy: "Client sends clean").count, 3, log())
        let saved = try SessionDefinition.load(path: session + "/" + joined + "/session.toml")
        XCTAssertEqual(saved.name, joined)
        XCTAssertEqual(saved.tracks.map(\.armed), [true, false])

        // Close: saved again, then SIGTERM; the jcap started by hand exits with its take's status.
        try oscsend(port, "/nsm/server/close")
        let account = try takeLogAccount(folder: session + "/" + joined, take: 1)
        assertAccountedFor(account, log())
        XCTAssertEqual(try byHand.wait(timeout: 30), exitStatus(reporting: account), byHand.output)
        try Self.waitFor("both terminated by nsmd") { log().components(separatedBy: "terminated by server instruction").count == 3 }

        // Open again: nsmd starts both as `jcap`; each opens its own session.toml.
        try oscsend(port, "/nsm/server/open", "s", "band")
        try Self.waitFor("both open again", timeout: 30) {
            (try? observer.port(named: joined + ":Vox")) != nil && (try? observer.port(named: launched + ":In 2")) != nil
        }
        try Self.waitFor("both replied to the open", timeout: 30) {
            log().components(separatedBy: "replied with: session 'band' open").count == 5
        }

        // A copy of the session (as nsmd's duplicate makes; that crashed nsmd, built from its master branch, here), opened
        // while this one is: nsmd switches both (`:switch:`) instead of restarting them.
        try FileManager.default.copyItem(atPath: session, toPath: root + "/band-copy")
        let launches = log().components(separatedBy: "Launching").count
        try oscsend(port, "/nsm/server/open", "s", "band-copy")
        try Self.waitFor("both switched", timeout: 30) {
            log().components(separatedBy: "replied with: session 'band-copy' open").count == 3
        }
        XCTAssertEqual(log().components(separatedBy: "to switch \"").count, 3, log())
        XCTAssertEqual(log().components(separatedBy: "Launching").count, launches, "switched, not restarted")
        XCTAssertNotNil(try? observer.port(named: joined + ":Vox"), log())
        XCTAssertNotNil(try? observer.port(named: launched + ":In 1"), log())
        try oscsend(port, "/nsm/server/quit")
        XCTAssertEqual(try nsmd.wait(timeout: 30), 0, log())
    }
}
