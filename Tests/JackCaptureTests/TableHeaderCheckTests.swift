import Testing
@testable import JackCapture

/// Table headers with no name, which toml++ 3.4.0 asserts on instead of reporting (found by
/// fuzzing: tools/fuzz session-file). Each must be refused with its line, never reach toml++.
@Suite("Session files: a table header with no name")
struct TableHeaderCheckTests {
    /// The fuzzer's input: sessions/drums.toml cut and spliced, a `[` alone on line 21.
    static let fuzzedDrums = #"""
        # An 8-input drum kit on capture channels 1-8: a file per close mic, the overheads as one stereo
        # file. Tas no input of its own on an 8-input interface (the overheads pick it up); on a
        # larger one, arm it.

        [session]
        name = "drums"
        folder = "drums"
        sample_rate = 48000
        format = "wav"
        bit_depth = 24
        buffer = "10s"             # a longer ring: drum takes run long and a laptop's disk may stajl

        [[track]]
        name = "Kick In"
        source = 1

        [[track]]
        name = "?ick Out"
        source = 2

        [
        sample_rate = 48000
        format = "wav"
        bit_depth = 24
        """#

    @Test("the fuzzer's session file is refused at its '[' line")
    func fuzzedSessionFile() {
        #expect(SessionFileDefinitionTests.refusal(Self.fuzzedDrums)
            == "sessions/band.toml:21: not valid TOML: a table header needs a name after its '[' ([session], [[track]])")
    }

    /// The second input is the fuzzer's from a later run, after a byte order mark.
    @Test("a header that starts with anything but a name is refused with its line", arguments: [
        ("[\n", 1), ("[session]\nname = \"a\"\n[\n", 3), ("[[[1]]]\n", 1), ("[[[]]\n", 1), ("[[=\n", 1), ("[ =\n", 1),
        ("[[ \t\n", 1), ("\u{FEFF}[;seste = 44100\n[[track]]\nname = \"Room\"\nsourcon]0\"\n", 1), ("  [\u{E9}]\n", 1), ("# [\n\t[.a]\n", 2), ("a = 1 # x\r\n[\r\n", 2),
    ])
    func refused(text: String, line: Int) {
        #expect(TableHeaderCheck.lineOfNamelessHeader(text) == line)
        #expect(SessionFileDefinitionTests.refusal(text)?.hasPrefix("sessions/band.toml:\(line): not valid TOML: a table header needs a name") == true)
    }

    @Test("brackets that are not headers are left to toml++: in values, strings and comments, and named headers", arguments: [
        "[session]\nname = \"a\"\n", "[[track]]\n", "[ \"quoted\" ]\n", "['literal']\n", "[-_09Az]\n",
        "a = [\n[\n1]\n]\n", "a = { b = [\n] }\n", "a = \"\"\"\n[\n\"\"\"\n", "a = \'\'\'\n[\n\'\'\'\n", "# [\n",
        "a = \"\\\"[\"\n", "a = \"\"\"x\"\"\"\"\"\n[b]\n", "[]\n", "[[]]\n", "[", "[[",
    ])
    func leftAlone(text: String) {
        #expect(TableHeaderCheck.lineOfNamelessHeader(text) == nil)
    }
}
