import Foundation
import XCTest

/// jcap knows a NetJACK2 slave by its driver's ports and says so: `jcap ports` names it with the
/// link's network latency (the master is a plain server), and `--transport`, which cannot cross
/// the link, is refused there with one line and exit status 64.
final class NetJackServerDetectionTests: NetJackTestCase {
    func testPortsNamesTheSlaveAndTransportIsRefusedThere() throws {
        try startLink(period: 256, channels: 2)
        let slavePorts = try runJcap(["ports"], server: link.slaves[0])
        XCTAssertEqual(slavePorts.status, 0, slavePorts.errors)
        XCTAssertTrue(slavePorts.errors.contains("this server is a NetJACK2 slave"), slavePorts.errors)
        XCTAssertTrue(slavePorts.errors.contains("network latency 2 cycles"), slavePorts.errors)
        XCTAssertTrue(slavePorts.output.hasPrefix("system:capture_1  channel 1  alias net_pcm:"), slavePorts.output)
        let masterPorts = try runJcap(["ports"], server: link.master)
        XCTAssertEqual(masterPorts.status, 0, masterPorts.errors)
        XCTAssertFalse(masterPorts.errors.contains("NetJACK2"), masterPorts.errors)

        let transport = try runJcap(["--channels", "1", "--transport", "-o", "take.wav"], server: link.slaves[0])
        XCTAssertEqual(transport.status, 64, transport.errors)
        XCTAssertTrue(transport.errors.contains("JACK transport does not cross NetJACK2"), transport.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("take.wav")))
    }
}
