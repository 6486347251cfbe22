import Testing
@testable import jcap

/// `jcap play --mix`'s keys: a digit mutes a track, `s` and a digit solos one.
@Suite("Play keys of a mix")
struct PlayMixKeysTests {
    @Test("digits mute tracks 1-9 and 0 track 10; s then a digit solos; s alone does nothing")
    func digits() {
        var keys = PlayKeys()
        #expect(keys.keys(in: Array("1".utf8)) == [.toggleMute(track: 1)])
        #expect(keys.keys(in: Array("90".utf8)) == [.toggleMute(track: 9), .toggleMute(track: 10)])
        #expect(keys.keys(in: Array("s3".utf8)) == [.toggleSolo(track: 3)])
        #expect(keys.keys(in: Array("s".utf8)) == [])
        #expect(keys.keys(in: Array("4".utf8)) == [.toggleSolo(track: 4)], "the s from the last read still counts")
        #expect(keys.keys(in: Array("s 5".utf8)) == [.togglePause, .toggleMute(track: 5)], "another key in between cancels the s")
    }
}
