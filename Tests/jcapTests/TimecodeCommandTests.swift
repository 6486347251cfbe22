import Testing
@testable import jcap

@Suite("jcap timecode's line")
struct TimecodeCommandTests {
    @Test func aLinkInputNamesTheSlavesCapturePort() {
        #expect(TimecodeCommand.slaveCapturePort(for: "slave1:to_slave_9") == "system:capture_9")
        #expect(TimecodeCommand.slaveCapturePort(for: "system:playback_1") == nil)
        #expect(TimecodeCommand.slaveCapturePort(for: "slave1:to_slave_x") == nil)
        #expect(TimecodeCommand.slaveCapturePort(for: "slave1:to_slave_0") == nil)
    }

    @Test func itSaysWhereTheTimecodeGoesAndHowASlaveReadsIt() {
        #expect(TimecodeCommand.banner(port: "jcap-timecode:out", destinations: ["slave1:to_slave_9"])
            == "jcap timecode: the master's frame time on jcap-timecode:out -> slave1:to_slave_9 "
            + "(on the slave: jcap --master-clock system:capture_9 ...)")
        #expect(TimecodeCommand.banner(port: "tc:out", destinations: ["a:to_slave_3", "b:to_slave_3"])
            == "jcap timecode: the master's frame time on tc:out -> a:to_slave_3, b:to_slave_3 "
            + "(on each slave: jcap --master-clock system:capture_3 ...)")
        #expect(TimecodeCommand.banner(port: "tc:out", destinations: ["a:to_slave_3", "b:to_slave_4"])
            == "jcap timecode: the master's frame time on tc:out -> a:to_slave_3, b:to_slave_4 "
            + "(on the slave: jcap --master-clock PORT ..., PORT the slave's capture port it arrives on)")
        #expect(TimecodeCommand.banner(port: "tc:out", destinations: []).hasPrefix("jcap timecode: the master's frame time on tc:out, not connected"))
    }
}
