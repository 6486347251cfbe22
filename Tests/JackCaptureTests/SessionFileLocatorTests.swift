import Testing
@testable import JackCapture

@Suite("Session file locator: the lines of tables and keys")
struct SessionFileLocatorTests {
    typealias Table = SessionFileLocator.Table

    @Test("headers, the n-th [[track]], and the first line of each key in each")
    func headersAndKeys() {
        let locator = SessionFileLocator(text: """
            # a comment with name = "not a key" and [not.a.header]
            [session]
            name = "band"
              sample_rate   =   48000   # trailing comment

            [[track]]
            name = "Kick In"
            source = 1

            [[track]]
            name = "Snare"
            source = "system:capture_2"
            group = "drums"
            """)
        #expect(locator.line(of: .table("session")) == 2)
        #expect(locator.line(ofKey: "name", in: .table("session")) == 3)
        #expect(locator.line(ofKey: "sample_rate", in: .table("session")) == 4)
        #expect(locator.line(of: .element("track", 0)) == 6)
        #expect(locator.line(of: .element("track", 1)) == 10)
        #expect(locator.line(ofKey: "source", in: .element("track", 0)) == 8)
        #expect(locator.line(ofKey: "group", in: .element("track", 1)) == 13)
        #expect(locator.line(ofKey: "group", in: .element("track", 0)) == nil)
        #expect(locator.line(of: .element("track", 2)) == nil)
        #expect(locator.line(ofKey: "session", in: .root) == 2)
        #expect(locator.line(ofKey: "track", in: .root) == 6)
        #expect(locator.keys(in: .table("session")) == ["name": 3, "sample_rate": 4])
    }

    @Test("quoted and dotted keys, blanks inside headers")
    func quotedAndDottedKeys() {
        let locator = SessionFileLocator(text: """
            [ "session" ]
            "name" = "band"
            'folder' = 'takes'
            "bit\\u005Fdepth" = 24
            "with \\"quotes\\"" = 1
            extra.deep = 1
            [[ track ]]
            name = "A"
            """)
        #expect(locator.line(of: .table("session")) == 1)
        #expect(locator.line(ofKey: "name", in: .table("session")) == 2)
        #expect(locator.line(ofKey: "folder", in: .table("session")) == 3)
        #expect(locator.line(ofKey: "bit_depth", in: .table("session")) == 4)
        #expect(locator.line(ofKey: "with \"quotes\"", in: .table("session")) == 5)
        #expect(locator.line(ofKey: "extra", in: .table("session")) == 6)
        #expect(locator.line(ofKey: "name", in: .element("track", 0)) == 8)
    }

    @Test("dotted keys at the root count as keys of their table")
    func dottedKeysAtRoot() {
        let locator = SessionFileLocator(text: """
            session.name = "band"
            session.folder = "takes"
            """)
        #expect(locator.line(ofKey: "name", in: .table("session")) == 1)
        #expect(locator.line(ofKey: "folder", in: .table("session")) == 2)
        #expect(locator.line(of: .table("session")) == 1)
    }

    @Test("nothing inside a value is taken for a header or a key")
    func valuesSkippedWhole() {
        let locator = SessionFileLocator(text: """
            [session]
            name = \"\"\"
            [[track]]
            source = 1
            \"\"\"
            notes = '''
            [mixer]
            '''
            list = [
              [1, 2],  # [[track]]
              "]", "\\"[",
            ]
            inline = { a = "[x]", b = [ 1 ] }
            quote = "a # not a comment [y]"
            last = 1
            [[track]]
            name = "A"
            """)
        #expect(locator.line(ofKey: "last", in: .table("session")) == 15)
        #expect(locator.line(ofKey: "inline", in: .table("session")) == 13)
        #expect(locator.line(ofKey: "source", in: .table("session")) == nil)
        #expect(locator.line(ofKey: "mixer", in: .root) == nil)
        #expect(locator.line(of: .element("track", 0)) == 16)
        #expect(locator.line(of: .element("track", 1)) == nil)
        #expect(locator.line(ofKey: "a", in: .table("session")) == nil)
    }

    @Test("a multi-line string may end in extra quotes")
    func multiLineStringEndingInQuotes() {
        let locator = SessionFileLocator(text: """
            a = \"\"\"text ""\"\"\"
            b = '''x''''
            c = 1
            """)
        #expect(locator.line(ofKey: "b", in: .root) == 2)
        #expect(locator.line(ofKey: "c", in: .root) == 3)
    }

    @Test("CRLF line ends count as one line each")
    func crlf() {
        let locator = SessionFileLocator(text: "[session]\r\nname = \"band\"\r\n\r\n[[track]]\r\nname = \"A\"\r\n")
        #expect(locator.line(ofKey: "name", in: .table("session")) == 2)
        #expect(locator.line(of: .element("track", 0)) == 4)
        #expect(locator.line(ofKey: "name", in: .element("track", 0)) == 5)
    }

    @Test("a sub-table header is a key of its parent, or of the latest element")
    func subTables() {
        let locator = SessionFileLocator(text: """
            [session]
            name = "band"
            [session.mixer]
            gain = 1
            [[track]]
            name = "A"
            [track.eq]
            low = 1
            [[track]]
            name = "B"
            """)
        #expect(locator.line(ofKey: "mixer", in: .table("session")) == 3)
        #expect(locator.line(ofKey: "gain", in: .table("session")) == nil)
        #expect(locator.line(ofKey: "eq", in: .element("track", 0)) == 7)
        #expect(locator.line(ofKey: "low", in: .element("track", 0)) == nil)
        #expect(locator.line(of: .element("track", 1)) == 9)
        #expect(locator.line(ofKey: "name", in: .element("track", 1)) == 10)
    }

    @Test("a table written inline is found at its name")
    func inlineTables() {
        let locator = SessionFileLocator(text: """
            session = { name = "band" }
            track = [
              { name = "A", source = 1 },
            ]
            """)
        #expect(locator.line(of: .table("session")) == 1)
        #expect(locator.line(ofKey: "name", in: .table("session")) == nil)
        #expect(locator.line(of: .element("track", 0)) == 2)
    }

    @Test("only a key's first line is kept")
    func firstLine() {
        let locator = SessionFileLocator(text: "a = 1\na = 2\n")
        #expect(locator.line(ofKey: "a", in: .root) == 1)
    }

    @Test("text that is not TOML still ends", arguments: [
        "[", "[[", "\"", "'''", "\"\"\"\n\\", "a = [ [ {", "= = =", "[session\nname", "x = \"\\", "\\u", "a.\"b", "#",
    ])
    func garbageEnds(text: String) {
        _ = SessionFileLocator(text: text)
    }
}
