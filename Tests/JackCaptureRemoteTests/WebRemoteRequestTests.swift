import Foundation
import HTTPTypes
import JackCapture
import Testing
@testable import JackCaptureRemote

@Suite("Browser remote: messages from the page")
struct WebRemoteRequestTests {
    func command(_ text: String) -> ControlCommand? {
        try? WebRemoteRequest.command(from: text).get()
    }

    func refusal(_ text: String) -> WebRemoteRefusal? {
        if case .failure(let refusal) = WebRemoteRequest.command(from: text) { return refusal }
        return nil
    }

    @Test func everyCommandThePageSends() {
        #expect(command(#"{"command":"record"}"#) == .record)
        #expect(command(#"{"command":"pause"}"#) == .pause)
        #expect(command(#"{"command":"resume"}"#) == .resume)
        #expect(command(#"{"command":"requestStop"}"#) == .requestStop)
        #expect(command(#"{"command":"confirmStop","yes":true}"#) == .confirmStop(true))
        #expect(command(#"{"command":"confirmStop"}"#) == .confirmStop(false), "no answer is no")
        #expect(command(#"{"command":"discardLastTake"}"#) == .discardLastTake)
        #expect(command(#"{"command":"confirmDiscard","yes":true}"#) == .confirmDiscard(true))
        #expect(command(#"{"command":"arm","track":"Kick In"}"#) == .arm(track: "Kick In"))
        #expect(command(#"{"command":"disarm","track":"OH Left"}"#) == .disarm(track: "OH Left"))
        #expect(command(#"{"command":"mark","take":3,"mark":"circled"}"#) == .mark(take: 3, .circled))
        #expect(command(#"{"command":"mark","take":3,"mark":"false-start"}"#) == .mark(take: 3, .falseStart))
        #expect(command(#"{"command":"mark","take":3,"mark":"no-good"}"#) == .mark(take: 3, .noGood))
        #expect(command(#"{"command":"mark","take":3,"mark":""}"#) == .mark(take: 3, nil), "an empty mark clears it")
        #expect(command(#"{"command":"note","take":2,"text":"sharp"}"#) == .note(take: 2, text: "sharp"))
        #expect(command(#"{"command":"clearClips"}"#) == .clearClips)
        #expect(command(#"{"command":"dropMarker"}"#) == .dropMarker)
    }

    @Test func whatIsNotACommandIsRefusedWithWhy() {
        #expect(refusal("garbage {{{") == .malformed("not a command object ({\"command\": ...})"))
        #expect(refusal("[1,2]") == .malformed("not a command object ({\"command\": ...})"))
        #expect(refusal(#"{"command":7}"#) == .malformed("not a command object ({\"command\": ...})"))
        #expect(refusal(#"{"command":"quit"}"#) == .malformed("unknown command 'quit'"), "a page cannot quit jcap")
        #expect(refusal(#"{"command":"arm"}"#) == .malformed("'arm' needs a track name"))
        #expect(refusal(#"{"command":"arm","track":""}"#) == .malformed("'arm' needs a track name"))
        #expect(refusal(#"{"command":"mark","mark":"circled"}"#) == .malformed("'mark' needs a take number"))
        #expect(refusal(#"{"command":"mark","take":0,"mark":"circled"}"#) == .malformed("'mark' needs a take number"))
        #expect(refusal(#"{"command":"mark","take":1,"mark":"gold"}"#) == .malformed("unknown mark 'gold' (circled, false-start, no-good)"))
        let longNote = #"{"command":"note","take":1,"text":""# + String(repeating: "a", count: 1_001) + #""}"#
        #expect(refusal(longNote) == .malformed("a note is at most 1000 characters"))
        let huge = #"{"command":"record","pad":""# + String(repeating: " ", count: 5_000) + #""}"#
        #expect(refusal(huge) == .tooLarge(bytes: huge.utf8.count))
    }
}

@Suite("Browser remote: address and token")
struct WebRemoteAddressTests {
    @Test func addressesParse() throws {
        #expect(try WebRemoteAddress(parsing: "8080") == WebRemoteAddress(host: "127.0.0.1", port: 8080))
        #expect(try WebRemoteAddress(parsing: "0.0.0.0:9000") == WebRemoteAddress(host: "0.0.0.0", port: 9000))
        #expect(try WebRemoteAddress(parsing: "[::1]:80") == WebRemoteAddress(host: "::1", port: 80))
        #expect(try WebRemoteAddress(parsing: "localhost:0").port == 0)
        #expect(try WebRemoteAddress(parsing: "8080").isLoopback)
        #expect(try !WebRemoteAddress(parsing: "192.168.1.20:8080").isLoopback)
        #expect(try WebRemoteAddress(parsing: "[::1]:80").description == "[::1]:80")
        for bad in ["", "abc", "70000", "-1", ":8080", "host name:80", "[::1]8080", "1.2.3.4:"] {
            #expect(throws: WebRemoteError.self, "\(bad)") { try WebRemoteAddress(parsing: bad) }
        }
    }

    @Test func tokensAreRandomAndCompared() throws {
        let one = WebRemoteToken.random(), two = WebRemoteToken.random()
        #expect(one != two)
        #expect(one.value.count == 32)
        #expect(one.value.allSatisfy { $0.isHexDigit })
        #expect(one.matches(one.value))
        #expect(!one.matches(two.value))
        #expect(!one.matches(nil))
        #expect(!one.matches(String(one.value.dropLast())))
        #expect(!one.matches(one.value + "0"))
        #expect(try WebRemoteToken("studio-B.2026_~x").value == "studio-B.2026_~x")
        #expect(throws: WebRemoteError.self) { try WebRemoteToken("short") }
        #expect(throws: WebRemoteError.self) { try WebRemoteToken("has space in it") }
        #expect(throws: WebRemoteError.self) { try WebRemoteToken("semi;colon;cookie") }
    }

    @Test func originMustNameTheHostAsked() {
        func head(_ origin: String?, _ authority: String) -> (request: HTTPRequest, Void) {
            var fields = HTTPFields()
            if let origin { fields[.origin] = origin }
            return (HTTPRequest(method: .get, scheme: nil, authority: authority, path: "/ws", headerFields: fields), ())
        }
        #expect(WebRemoteServer.originMatches(head("http://127.0.0.1:8080", "127.0.0.1:8080").request))
        #expect(WebRemoteServer.originMatches(head("http://studio.local", "studio.local").request))
        #expect(WebRemoteServer.originMatches(head("http://studio.local", "studio.local:80").request))
        #expect(!WebRemoteServer.originMatches(head("http://evil.example", "127.0.0.1:8080").request))
        #expect(!WebRemoteServer.originMatches(head("http://127.0.0.1:8081", "127.0.0.1:8080").request))
        #expect(!WebRemoteServer.originMatches(head(nil, "127.0.0.1:8080").request))
        #expect(!WebRemoteServer.originMatches(head("null", "127.0.0.1:8080").request))
        #expect(!WebRemoteServer.originMatches(head("file://127.0.0.1:8080", "127.0.0.1:8080").request))
    }
}
