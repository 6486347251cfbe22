import Foundation
import Testing
@testable import jcap

@Suite("Meter JSON lines")
struct MeterJSONTests {
    @Test("JSON lines parse and carry the fields")
    func json() throws {
        let line = MeterJSONLine(MeterSnapshots.snapshot(channels: 8)).encoded()
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["elapsed_frames"] as? Int == 3_984_000)
        #expect(object["buffer_fill"] as? Double == 0.03)
        #expect(object["xruns"] as? Int == 0)
        #expect(object["lost_frames"] as? Int == 0)
        let channels = try #require(object["channels"] as? [[String: Any]])
        #expect(channels.count == 8)
        #expect(channels[2]["name"] as? String == "capture_3")
        #expect(channels[2]["peak_db"] as? Double == -20)
        #expect(channels[2]["average_db"] as? Double == -26)
        #expect(channels[2]["clip"] as? Bool == false)
        #expect(channels[7]["clip"] as? Bool == true)
        #expect(channels[0]["peak_db"] as? Double == -160)
    }

    @Test("a paused take says so")
    func paused() {
        #expect(MeterJSONLine(MeterSnapshots.paused()).encoded().contains("\"state\":\"paused\""))
    }
}
