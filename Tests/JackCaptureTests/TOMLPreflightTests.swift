import Testing
@testable import JackCapture

/// Invalid TOML that toml++ 3.4.0 asserts on instead of reporting (found by fuzzing: tools/fuzz
/// session-file): each must be refused with its line, never reach toml++.
@Suite("Session files: invalid TOML toml++ would assert on")
struct TOMLPreflightTests {
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
        #expect(TOMLPreflight.firstProblem(text) == .namelessHeader(line: line))
        #expect(SessionFileDefinitionTests.refusal(text)?.hasPrefix("sessions/band.toml:\(line): not valid TOML: a table header needs a name") == true)
    }

    @Test("brackets that are not headers are left to toml++: in values, strings and comments, and named headers", arguments: [
        "[session]\nname = \"a\"\n", "[[track]]\n", "[ \"quoted\" ]\n", "['literal']\n", "[-_09Az]\n",
        "a = [\n[\n1]\n]\n", "a = { b = [\n] }\n", "a = \"\"\"\n[\n\"\"\"\n", "a = \'\'\'\n[\n\'\'\'\n", "# [\n",
        "a = \"\\\"[\"\n", "a = \"\"\"x\"\"\"\"\"\n[b]\n", "[]\n", "[[]]\n", "[", "[[",
    ])
    func leftAlone(text: String) {
        #expect(TOMLPreflight.firstProblem(text) == nil)
    }

    /// The fuzzer's input (control characters as \u{1B}): a name that is a date, 'T', then no time.
    static let fuzzedDateTime = "# Thname testsi-001-Signal 1.wav ... take-001-Pair.wav.\n\n[session]\nname =1979-05-27T"
        + String(repeating: "\u{1B}", count: 81) + "07:32:00Z # also the JACK clien5 name:crska ft then right.\n"
        + "[[track]]\nname = \"Pair L\"\nrce = \"testsignal:out_8\"\ngroup = \"Pair\"\n"

    @Test("the fuzzer's date with no time after its 'T' is refused at its line")
    func fuzzedDate() {
        #expect(SessionFileDefinitionTests.refusal(Self.fuzzedDateTime)
            == "sessions/band.toml:4: not valid TOML: a date followed by 'T' needs a time (1979-05-27T07:32:00Z)")
    }

    @Test("a date followed by 'T' and anything but a digit is refused, in a value or an array", arguments: [
        ("a = 1979-05-27Tx07:32:00Z\n", 1), ("a = 1979-05-27T_07:32:00Z\n", 1), ("\na=1979-05-27t:07:32\n", 2),
        ("a = [1979-05-27T.07:32:00Z]\n", 1), ("a = [ 1, 1979-05-27TZ07:32:00Z ]\n", 1), ("a = 1979-05-27T-07:32:00Z\n", 1),
    ])
    func dateWithoutTime(text: String, line: Int) {
        #expect(TOMLPreflight.firstProblem(text) == .dateWithoutTime(line: line))
    }

    @Test("dates and date-times that toml++ reads or reports itself are left alone", arguments: [
        "a = 1979-05-27T07:32:00Z\n", "a = 1979-05-27 07:32:00\n", "a = 1979-05-27\n", "a = 1979-05-27T", "a = \"1979-05-27Tx\"\n",
        "# a = 1979-05-27Tx\n", "[1979-05-27Tx]\n", "1979-05-27Tx = 1\n", "a = 1979-05-27 Z7:32:00Z\n",
    ])
    func datesLeftAlone(text: String) {
        #expect(TOMLPreflight.firstProblem(text) == nil)
    }
}
