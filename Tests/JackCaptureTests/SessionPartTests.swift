import Foundation
import Testing
@testable import JackCapture

@Suite("Session parts: a session split across recorder hosts (part = \"...\", --part NAME)")
struct SessionPartTests {
    static let text = """
        [session]
        name = "band"

        [[track]]
        name = "Desk L"
        source = 1
        part = "desk"

        [[track]]
        name = "Kick"
        source = 2
        part = "stage"

        [[track]]
        name = "Snare"
        source = 3
        part = "stage"
        arm = false

        [[track]]
        name = "Talkback"
        source = 4
        """

    @Test("a part keeps its tracks only, armed as the file says, with their take files")
    func restricted() throws {
        let session = try SessionDefinition.parse(Self.text, path: "band.toml")
        #expect(session.part == nil)
        #expect(session.tracks.map(\.part) == ["desk", "stage", "stage", nil])
        let stage = try session.restricted(toPart: "stage")
        #expect(stage.part == "stage")
        #expect(stage.tracks.map(\.name) == ["Kick", "Snare"])
        #expect(stage.armedTracks.map(\.name) == ["Kick"])
        #expect(stage.takeFiles.map(\.label) == ["Kick"])
        #expect(try session.restricted(toPart: "desk").tracks.map(\.name) == ["Desk L"])
    }

    @Test("an unknown part, a part with nothing armed and an empty part are refused in one line")
    func refusals() throws {
        let session = try SessionDefinition.parse(Self.text, path: "band.toml")
        #expect(throws: SessionFileError(path: "band.toml", message: "no track has part = \"foyer\": the parts are 'desk', 'stage'")) {
            try session.restricted(toPart: "foyer")
        }
        let unarmed = try SessionDefinition.parse(Self.text.replacingOccurrences(of: "source = 1\n", with: "source = 1\narm = false\n"),
                                                  path: "band.toml")
        #expect(throws: SessionFileError(path: "band.toml", message: "part 'desk': every track has arm = false (arm at least one)")) {
            try unarmed.restricted(toPart: "desk")
        }
        #expect(throws: SessionFileError.self) {
            try SessionDefinition.parse(Self.text.replacingOccurrences(of: "part = \"desk\"", with: "part = \" \""), path: "band.toml")
        }
    }
}
