import Foundation
import Testing
@testable import JackCapture

@Suite("Session files: loading, defaults, files and refusals")
/// Named SessionFile... so that `swift test --filter SessionFile` runs it with the locator's tests.
struct SessionFileDefinitionTests {
    static let path = "sessions/band.toml"

    static func parse(_ text: String, path: String = path) throws -> SessionDefinition {
        try SessionDefinition.parse(text, path: path)
    }

    /// The one line a refused session gets, or nil if it loads.
    static func refusal(_ text: String, path: String = path) -> String? {
        do {
            _ = try SessionDefinition.parse(text, path: path)
            return nil
        } catch {
            return error.description
        }
    }

    // MARK: - Defaults and values

    @Test("align_latency aligns every take to its sources' capture latency; off unless asked")
    func alignLatency() throws {
        let tracks = "\n[[track]]\nname = \"Kick\"\nsource = 1\n"
        #expect(try Self.parse("[session]\nname = \"band\"\n" + tracks).alignsToCaptureLatency == false)
        #expect(try Self.parse("[session]\nname = \"band\"\nalign_latency = true\n" + tracks).alignsToCaptureLatency)
        #expect(try Self.parse("[session]\nname = \"band\"\nalign_latency = false\n" + tracks).alignsToCaptureLatency == false)
        let refused = Self.refusal("[session]\nname = \"band\"\nalign_latency = \"yes\"\n" + tracks)
        #expect(refused?.hasPrefix("sessions/band.toml:3: align_latency: ") == true, "\(refused ?? "loaded")")
    }

    @Test("a minimal session takes every default")
    func defaults() throws {
        let session = try Self.parse("""
            [session]
            name = "band"

            [[track]]
            name = "Kick In"
            source = 1
            """)
        #expect(session.name == "band")
        #expect(session.sessionFilePath == "sessions/band.toml")
        #expect(session.folder == "sessions/band")
        #expect(session.sampleRate == nil)
        #expect(session.settings == RecordingSettings())
        #expect(session.fileExtension == "wav")
        #expect(try session.format == RecordingSettings().resolveFormat(forPath: "take.wav"))
        #expect(session.format.displayName == "24-bit WAV")
        #expect(session.layout == .mono)
        #expect(session.bufferSeconds == 4)
        #expect(session.tracks == [
            SessionTrack(name: "Kick In", portName: "Kick In", source: .channel(1), group: nil, armed: true, line: 4),
        ])
        #expect(session.armedTracks == session.tracks)
        #expect(session.takeFiles == [SessionTakeFile(label: "Kick In", trackIndices: [0])])
    }

    @Test("every key read as jcap's flags would set it")
    func everyKey() throws {
        let session = try Self.parse("""
            [session]
            name = "opus session"
            folder = "takes/opus"
            sample_rate = 48000
            format = "OGG"
            encoding = "opus"
            quality = 0.6
            buffer = "10s"
            layout = "interleaved"

            [[track]]
            name = "Vocal"
            source = "mixer:out_*"
            arm = true
            """)
        #expect(session.folder == "sessions/takes/opus")
        #expect(session.sampleRate == 48000)
        #expect(session.settings == RecordingSettings(format: .opus, quality: 0.6))
        #expect(session.fileExtension == "ogg")
        #expect(session.format.encoding == .opus)
        #expect(session.format.container == .ogg)
        #expect(session.format.quality == 0.6)
        #expect(session.layout == .interleaved)
        #expect(session.bufferSeconds == 10)
        #expect(session.tracks[0].source == .port("mixer:out_*"))
    }

    @Test("bit depths, byte order and compression as the jcap flags")
    func formatKeys() throws {
        let float = try Self.parse(Self.withSession("format = \"caf\"\nbit_depth = \"float\"\nendian = \"little\""))
        #expect(float.settings == RecordingSettings(format: .float, bitDepth: 32, endianness: .little))
        #expect(float.format.displayName == "32-bit float little-endian CAF")

        let flac = try Self.parse(Self.withSession("format = \"flac\"\nbit_depth = 16\ncompression_level = 8"))
        #expect(flac.settings == RecordingSettings(bitDepth: 16, compressionLevel: 8))
        #expect(flac.format.displayName == "FLAC 16-bit level 8")

        let aiff = try Self.parse(Self.withSession("format = \".aif\"\nencoding = \"PCM\"\nbit_depth = 16\nendian = \"Little\""))
        #expect(aiff.fileExtension == "aif")
        #expect(aiff.format.displayName == "16-bit little-endian AIFF")

        let mp3 = try Self.parse(Self.withSession("format = \"mp3\"\nquality = 1\nsample_rate = 44100"))
        #expect(mp3.settings.quality == 1)
        #expect(mp3.format.displayName == "MP3 q1")
    }

    @Test("io: how take files are written, auto unless set; written back when set")
    func diskIOKey() throws {
        #expect(try Self.parse(Self.withSession("format = \"wav\"")).settings.diskIO == .auto)
        for mode in DiskIO.allCases {
            let definition = try Self.parse(Self.withSession("io = \"\(mode.rawValue.uppercased())\""))
            #expect(definition.settings.diskIO == mode)
            let text = SessionFileWriter.text(of: definition, path: "sessions/band.toml")
            #expect(text.contains("io = \"\(mode.rawValue)\"") == (mode != .auto))
        }
    }

    @Test("buffer lengths: any duration jcap takes; frames at the session's rate")
    func buffers() throws {
        #expect(try Self.parse(Self.withSession("buffer = \"250ms\"")).bufferSeconds == 0.25)
        #expect(try Self.parse(Self.withSession("buffer = \"1:30\"")).bufferSeconds == 90)
        #expect(try Self.parse(Self.withSession("sample_rate = 48000\nbuffer = \"96000f\"")).bufferSeconds == 2)
    }

    /// A session of one track on channel 1 with `lines` added to [session].
    static func withSession(_ lines: String) -> String {
        "[session]\nname = \"band\"\n\(lines)\n\n[[track]]\nname = \"Kick In\"\nsource = 1\n"
    }

    // MARK: - Folders

    @Test("the folder is resolved against the session file's directory; absolute stays absolute", arguments: [
        ("sessions/band.toml", nil, "sessions/band"),
        ("sessions/band.toml", "takes", "sessions/takes"),
        ("sessions/band.toml", "../takes/live", "sessions/../takes/live"),
        ("/srv/studio/band.toml", "2026-11", "/srv/studio/2026-11"),
        ("/band.toml", "takes", "/takes"),
        ("band.toml", "takes", "takes"),
        ("./band.toml", nil, "./band"),
        ("sessions/band.toml", "/mnt/recordings/band", "/mnt/recordings/band"),
    ] as [(String, String?, String)])
    func folders(path: String, folder: String?, expected: String) throws {
        let session = try Self.parse(Self.withSession(folder.map { "folder = \"\($0)\"" } ?? ""), path: path)
        #expect(session.folder == expected)
    }

    @Test("the default folder is the name made file-system safe")
    func defaultFolderIsSafe() throws {
        let text = "[session]\nname = \".live/2026\"\n[[track]]\nname = \"A\"\nsource = 1\n"
        #expect(try Self.parse(text).folder == "sessions/_live_2026")
    }

    // MARK: - Tracks, groups and files

    static let grouped = """
        [session]
        name = "band"

        [[track]]
        name = "Kick"
        source = 1

        [[track]]
        name = "OH L"
        source = 7
        group = "overheads"

        [[track]]
        name = "Snare"
        source = "system:capture_3"

        [[track]]
        name = "Talkback"
        source = 9
        arm = false

        [[track]]
        name = "Keys L"
        source = 5
        group = "keys"
        arm = false

        [[track]]
        name = "OH R"
        source = 8
        group = "overheads"

        [[track]]
        name = "Keys R"
        source = 6
        group = "keys"
        """

    @Test("tracks in file order, armed ones apart, with their lines")
    func tracks() throws {
        let session = try Self.parse(Self.grouped)
        #expect(session.tracks.map(\.name) == ["Kick", "OH L", "Snare", "Talkback", "Keys L", "OH R", "Keys R"])
        #expect(session.tracks.map(\.line) == [4, 8, 13, 17, 22, 28, 33])
        #expect(session.tracks.map(\.armed) == [true, true, true, false, false, true, true])
        #expect(session.tracks[2].source == .port("system:capture_3"))
        #expect(session.tracks[1].group == "overheads")
        #expect(session.armedTracks.map(\.name) == ["Kick", "OH L", "Snare", "OH R", "Keys R"])
    }

    @Test("tracks sharing a group share a file, placed at its first armed track, channels in track order")
    func groupsShareFiles() throws {
        let session = try Self.parse(Self.grouped)
        #expect(session.takeFiles == [
            SessionTakeFile(label: "Kick", trackIndices: [0]),
            SessionTakeFile(label: "overheads", trackIndices: [1, 3]),
            SessionTakeFile(label: "Snare", trackIndices: [2]),
            SessionTakeFile(label: "keys", trackIndices: [4]),
        ])
        #expect(session.takeFiles.map { session.fileName(take: 7, file: $0) } == [
            "take-007-Kick.wav", "take-007-overheads.wav", "take-007-Snare.wav", "take-007-keys.wav",
        ])
    }

    @Test("interleaved: one file of every armed track, whatever the groups")
    func interleaved() throws {
        let session = try Self.parse(Self.grouped.replacingOccurrences(of: "name = \"band\"",
                                                                       with: "name = \"band\"\nlayout = \"interleaved\""))
        #expect(session.layout == .interleaved)
        #expect(session.takeFiles == [SessionTakeFile(label: nil, trackIndices: [0, 1, 2, 3, 4])])
        #expect(session.takeFiles[0].channelCount == 5)
        #expect(session.fileName(take: 7, file: session.takeFiles[0]) == "take-007.wav")
        #expect(session.filePath(take: 12, file: session.takeFiles[0]) == "sessions/band/take-012.wav")
    }

    @Test("file names: the number padded to three digits or more, the extension the format's")
    func fileNames() throws {
        let session = try Self.parse(Self.withSession("format = \"flac\""))
        let file = SessionTakeFile(label: "Kick In", trackIndices: [0])
        #expect(session.fileName(take: 1, file: file) == "take-001-Kick In.flac")
        #expect(session.fileName(take: 42, file: file) == "take-042-Kick In.flac")
        #expect(session.fileName(take: 999, file: file) == "take-999-Kick In.flac")
        #expect(session.fileName(take: 1000, file: file) == "take-1000-Kick In.flac")
        #expect(session.fileName(take: 123_456, file: SessionTakeFile(label: nil, trackIndices: [0])) == "take-123456.flac")
        #expect(session.filePath(take: 3, file: file) == "sessions/band/take-003-Kick In.flac")
    }

    @Test("names made file-system safe: '/', NUL and control characters, a leading '.'", arguments: [
        ("AC/DC", "take-001-AC_DC.wav"),
        (".hidden", "take-001-_hidden.wav"),
        ("..", "take-001-_..wav"),
        ("a\u{0}b", "take-001-a_b.wav"),
        ("tab\there\nnewline\u{7F}\u{85}", "take-001-tab_here_newline__.wav"),
        ("Gtr: Amp (SM57) é ✓", "take-001-Gtr: Amp (SM57) é ✓.wav"),
        ("mid.dot", "take-001-mid.dot.wav"),
    ])
    func safeFileNames(label: String, expected: String) throws {
        let session = try Self.parse(Self.withSession(""))
        #expect(session.fileName(take: 1, file: SessionTakeFile(label: label, trackIndices: [0])) == expected)
    }

    @Test("a NUL written as an escape in a name becomes '_', never cuts the name short", arguments: [
        (#""Vo\u0000x""#, "Vo_x"),
        (#""Vo\U00000000x\u0000""#, "Vo_x_"),
        (#""""Vo\u0000x""""#, "Vo_x"),
        (#""c\\u0000d""#, #"c\u0000d"#),
        (#"'lit\u0000eral'"#, #"lit\u0000eral"#),
        (#""q\"\u0000""#, "q\"_"),
    ])
    func nulEscapeInName(written: String, name: String) throws {
        let session = try Self.parse("[session]\nname = \"band\" # a \"\\u0000\" comment\n\n[[track]]\nname = \(written)\nsource = 1\n")
        #expect(session.tracks.first?.name == name)
        #expect(session.fileName(take: 1, file: session.takeFiles[0]) == "take-001-\(name).wav")
    }

    @Test("take numbers read back from session file names, so none is reused", arguments: [
        ("take-007-Kick In.wav", 7), ("take-007-overheads.flac", 7), ("take-007.wav", 7), ("take-1000-a.b.wav", 1000),
        ("take-007", nil), ("take--1.wav", nil), ("take-x.wav", nil), ("mytake-001.wav", nil), ("take-12b.wav", nil),
    ] as [(String, Int?)])
    func takeNumbers(name: String, number: Int?) {
        #expect(SessionDefinition.takeNumber(ofFileName: name) == number)
    }

    // MARK: - Port names

    @Test("port names: the track name, ':' made '-'")
    func portNames() throws {
        let session = try Self.parse("""
            [session]
            name = "band"
            [[track]]
            name = "Gtr: Amp"
            source = 1
            [[track]]
            name = "Vox / Lead ✓"
            source = 2
            """)
        #expect(session.tracks.map(\.portName) == ["Gtr- Amp", "Vox / Lead ✓"])
    }

    @Test("port names are segmentStart, whole characters, so client:port fits JACK's 256 bytes with the session's name")
    func longPortNames() throws {
        let client = String(repeating: "c", count: 60)
        let long = String(repeating: "é", count: 115)  // 230 bytes: fits a file name, not a port name
        let session = try Self.parse("[session]\nname = \"\(client)\"\n[[track]]\nname = \"\(long)\"\nsource = 1\n")
        let port = session.tracks[0].portName
        // 256 less the NUL, the ':', and the 3 bytes JACK adds to a taken client name: 191 bytes.
        #expect(port == String(repeating: "é", count: 95))
        #expect(client.utf8.count + 3 + 1 + port.utf8.count + 1 <= 256)
        #expect(session.fileName(take: 1, file: session.takeFiles[0]) == "take-001-\(long).wav")

        let short = try Self.parse("[session]\nname = \"b\"\n[[track]]\nname = \"\(long)\"\nsource = 1\n")
        #expect(short.tracks[0].portName == long)
    }

    // MARK: - Errors found later, against the server

    @Test("errors at a track's key or a session key, for checks made against the server")
    func laterErrors() throws {
        let session = try Self.parse(Self.grouped.replacingOccurrences(of: "name = \"band\"",
                                                                       with: "name = \"band\"\nsample_rate = 48000"))
        #expect(session.error(track: 2, key: "source", "no JACK output port matches 'system:capture_3'").description
            == "sessions/band.toml:16: track 'Snare': source: no JACK output port matches 'system:capture_3'")
        #expect(session.error(for: session.armedTracks[3], key: "source", "no capture channel 8").description
            == "sessions/band.toml:31: track 'OH R': source: no capture channel 8")
        // A key the track does not set: the track's header.
        #expect(session.error(track: 0, key: "group", "x").description == "sessions/band.toml:5: track 'Kick': group: x")
        #expect(session.error(sessionKey: "sample_rate", "the server runs at 44100 Hz, not 48000").description
            == "sessions/band.toml:3: sample_rate: the server runs at 44100 Hz, not 48000")
        #expect(session.error(sessionKey: "buffer", "too long").description == "sessions/band.toml:1: buffer: too long")
        #expect(session.error(track: 99, key: "source", "x") == SessionFileError(path: Self.path, key: "source", context: "track 100", message: "x"))
    }

    // MARK: - Refusals

    /// `session` followed by one track.
    static func withTrack(_ session: String) -> String {
        session + "\n[[track]]\nname = \"Kick In\"\nsource = 1\n"
    }

    static let sessionCases: [(String, String)] = [
        // TOML syntax, with toml++'s line.
        ("[session]\nname = \"band\"\nname = \"again\"\n",
         "sessions/band.toml:3: not valid TOML: error while parsing key-value pair: cannot redefine existing string 'name'"),
        ("[session]\nname = \"band\n",
         "sessions/band.toml:2: not valid TOML: error while parsing string: unescaped control characters other than TAB (U+0009) are explicitly prohibited"),
        ("[session\nname = \"band\"\n", "sessions/band.toml:1: not valid TOML: error while parsing table header: expected ']', saw '\\n'"),
        ("[session]\nname = \"a\u{0}\"\n", "sessions/band.toml:2: a NUL character: a session file is text"),
        // Tables.
        ("[[track]]\nname = \"A\"\nsource = 1\n",
         "sessions/band.toml: no [session] table: a session file starts with [session] and the session's name (name = \"band\")"),
        (withTrack("[[session]]\nname = \"band\"\n"), "sessions/band.toml:1: session: a session has one [session] table, not [[session]]"),
        (withTrack("session = \"band\"\n"), "sessions/band.toml:1: session: expected a [session] table, not a string (\"band\")"),
        ("[session]\nname = \"band\"\n\n[[track]]\nname = \"Kick In\"\nsource = 1\n\n[mixer]\ngain = 1\n",
         "sessions/band.toml:8: mixer: unknown table (a session file has one [session] table and a [[track]] table for each input)"),
        ("[session]\nname = \"band\"\n[[tracks]]\nname = \"A\"\n", "sessions/band.toml:3: tracks: unknown table [[tracks]] (did you mean [[track]]?)"),
        ("[sesion]\nname = \"band\"\n", "sessions/band.toml:1: sesion: unknown table [sesion] (did you mean [session]?)"),
        (withTrack("name = \"band\"\n[session]\nname = \"band\"\n"), "sessions/band.toml:1: name: belongs in [session]: put it after the [session] header"),
        (withTrack("source = 1\n[session]\nname = \"band\"\n"), "sessions/band.toml:1: source: belongs in a [[track]]: put it after a [[track]] header"),
        (withTrack("volume = 1\n[session]\nname = \"band\"\n"),
         "sessions/band.toml:1: volume: unknown key at the top of the file (a session file has one [session] table and a [[track]] table for each input)"),
        // [session] keys.
        (withTrack("[session]\nname = \"band\"\nsmaple_rate = 48000\n"), "sessions/band.toml:3: smaple_rate: unknown key in [session] (did you mean sample_rate?)"),
        (withTrack("[session]\nname = \"band\"\nbit-depth = 24\n"), "sessions/band.toml:3: bit-depth: unknown key in [session] (did you mean bit_depth?)"),
        (withTrack("[session]\nname = \"band\"\nzzz = 1\ncolour = \"red\"\n"),
         "sessions/band.toml:3: zzz: unknown key in [session] (use name, folder, sample_rate, format, encoding, bit_depth, endian, quality, compression_level, buffer, layout, align_latency, scene, tape or io)"),
        (withTrack("[session]\nname = \"band\"\n[session.mixer]\ngain = 1\n"),
         "sessions/band.toml:3: mixer: unknown key in [session] (use name, folder, sample_rate, format, encoding, bit_depth, endian, quality, compression_level, buffer, layout, align_latency, scene, tape or io)"),
        (withTrack("[session]\nformat = \"wav\"\n"),
         "sessions/band.toml:1: name: missing: the session's name, also its JACK client name (name = \"band\")"),
        (withTrack("[session]\nname = 5\n"), "sessions/band.toml:2: name: expected the session's name in quotes (name = \"band\"), not an integer (5)"),
        (withTrack("[session]\nname = \" \"\n"), "sessions/band.toml:2: name: empty: the session's name is also its JACK client name (name = \"band\")"),
        (withTrack("[session]\nname = \"live:band\"\n"),
         "sessions/band.toml:2: name: 'live:band' cannot be a JACK client name: ':' separates client and port names"),
        (withTrack("[session]\nname = \"\(String(repeating: "n", count: 61))\"\n"),
         "sessions/band.toml:2: name: '\(String(repeating: "n", count: 61))' is 61 bytes, too long for a JACK client name (at most 60: JACK allows 63, and makes a taken name unique with 3 more)"),
        (withTrack("[session]\nname = \"band\"\nfolder = \"\"\n"),
         "sessions/band.toml:3: folder: empty: leave folder out to record into a folder named after the session"),
        (withTrack("[session]\nname = \"band\"\nfolder = \"~/takes\"\n"),
         "sessions/band.toml:3: folder: '~/takes': '~' is not expanded (give the folder in full, or relative to the session file)"),
        (withTrack("[session]\nname = \"band\"\nfolder = 1\n"), "sessions/band.toml:3: folder: expected a folder in quotes (folder = \"takes\"), not an integer (1)"),
        (withTrack("[session]\nname = \"band\"\nsample_rate = \"48k\"\n"),
         "sessions/band.toml:3: sample_rate: expected a whole number of hertz (sample_rate = 48000), not a string (\"48k\")"),
        (withTrack("[session]\nname = \"band\"\nsample_rate = 48000.0\n"),
         "sessions/band.toml:3: sample_rate: expected a whole number of hertz (sample_rate = 48000), not a floating-point number (48000.0)"),
        (withTrack("[session]\nname = \"band\"\nsample_rate = 0\n"), "sessions/band.toml:3: sample_rate: sample rate 0 Hz is out of range (use 1 to 768000 Hz)"),
        (withTrack("[session]\nname = \"band\"\nformat = \"mp3\"\nsample_rate = 96000\n"),
         "sessions/band.toml:4: sample_rate: MP3 cannot be written at 96000 Hz (it takes 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100 or 48000 Hz)"),
        (withTrack("[session]\nname = \"band\"\nlayout = \"stereo\"\n"),
         "sessions/band.toml:3: layout: expected \"mono\" (a file per track or group) or \"interleaved\" (one file of every armed track), not \"stereo\""),
        (withTrack("[session]\nname = \"band\"\nlayout = true\n"),
         "sessions/band.toml:3: layout: expected \"mono\" (a file per track or group) or \"interleaved\" (one file of every armed track), not a boolean (true)"),
        // Formats, with the library's own descriptions.
        (withTrack("[session]\nname = \"band\"\nformat = \"m4v\"\n"),
         "sessions/band.toml:3: format: 'm4v' is not a container jcap writes (use wav, w64, rf64, caf, aiff, au, flac, ogg, opus or mp3)"),
        (withTrack("[session]\nname = \"band\"\nformat = \"pcm\"\n"),
         "sessions/band.toml:3: format: 'pcm' is an encoding, not a container: set encoding = \"pcm\" and format to wav, w64, rf64, caf, aiff, au, flac, ogg, opus or mp3"),
        (withTrack("[session]\nname = \"band\"\nformat = \"m4a\"\n"),
         "sessions/band.toml:3: format: AAC cannot be written: libsndfile has no AAC encoder (ALAC in a .caf file, MP3, Opus and Vorbis can be)"),
        (withTrack("[session]\nname = \"band\"\nencoding = \"dsd\"\n"),
         "sessions/band.toml:3: encoding: unknown format 'dsd' (use pcm, float, flac, alac, ima-adpcm, ulaw, alaw, mp3, vorbis or opus)"),
        (withTrack("[session]\nname = \"band\"\nencoding = \"alac\"\n"), "sessions/band.toml:3: encoding: ALAC needs a .caf file, not .wav"),
        (withTrack("[session]\nname = \"band\"\nbit_depth = 20\n"),
         "sessions/band.toml:3: bit_depth: PCM holds 8, 16, 24 or 32-bit integer samples, not 20-bit"),
        (withTrack("[session]\nname = \"band\"\nformat = \"flac\"\nbit_depth = \"float\"\n"),
         "sessions/band.toml:4: bit_depth: FLAC holds 8, 16 or 24-bit integer samples, not float"),
        (withTrack("[session]\nname = \"band\"\nencoding = \"pcm\"\nbit_depth = \"float\"\n"),
         "sessions/band.toml:4: bit_depth: \"float\" means encoding \"float\", but encoding is \"pcm\" (give a number of bits)"),
        (withTrack("[session]\nname = \"band\"\nbit_depth = \"24bit\"\n"),
         "sessions/band.toml:3: bit_depth: expected a number of bits (bit_depth = 24) or \"float\", not a string (\"24bit\")"),
        (withTrack("[session]\nname = \"band\"\nformat = \"ogg\"\nbit_depth = 16\n"),
         "sessions/band.toml:4: bit_depth: Ogg Vorbis has a fixed sample size and takes no bit depth"),
        (withTrack("[session]\nname = \"band\"\nendian = \"big\"\n"),
         "sessions/band.toml:3: endian: PCM in WAV is not written big-endian (only in a .caf, .aiff or .au file)"),
        (withTrack("[session]\nname = \"band\"\nendian = \"middle\"\n"), "sessions/band.toml:3: endian: expected \"little\" or \"big\", not \"middle\""),
        (withTrack("[session]\nname = \"band\"\nquality = 0.5\n"),
         "sessions/band.toml:3: quality: a quality setting applies to mp3, vorbis and opus, not PCM"),
        (withTrack("[session]\nname = \"band\"\nformat = \"opus\"\nquality = \"high\"\n"),
         "sessions/band.toml:4: quality: expected a number from 0 (smallest file) to 1 (best quality), e.g. quality = 0.6, not a string (\"high\")"),
        (withTrack("[session]\nname = \"band\"\nformat = \"opus\"\nquality = 1.5\n"),
         "sessions/band.toml:4: quality: quality 1.5 is out of range (0 for the smallest file to 1 for the best quality)"),
        (withTrack("[session]\nname = \"band\"\nio = \"sideways\"\n"),
         "sessions/band.toml:3: io: expected \"auto\", \"direct\" or \"buffered\", not \"sideways\""),
        (withTrack("[session]\nname = \"band\"\nformat = \"flac\"\ncompression_level = 9\n"),
         "sessions/band.toml:4: compression_level: compression level 9 is out of range (0, fastest, to 8, smallest)"),
        (withTrack("[session]\nname = \"band\"\ncompression_level = 5\n"),
         "sessions/band.toml:3: compression_level: a compression level applies to FLAC, not PCM"),
        // Buffer.
        (withTrack("[session]\nname = \"band\"\nbuffer = \"10x\"\n"),
         "sessions/band.toml:3: buffer: bad duration '10x': unknown unit; expected e.g. 60s, 1.01s, 250ms, 48000f, 1:30 or 1:02:03.5"),
        (withTrack("[session]\nname = \"band\"\nbuffer = \"5ms\"\n"), "sessions/band.toml:3: buffer: bad duration '5ms': the buffer must hold at least 10ms"),
        (withTrack("[session]\nname = \"band\"\nbuffer = \"48000f\"\n"),
         "sessions/band.toml:3: buffer: '48000f' is in frames, which needs sample_rate (or give seconds: buffer = \"10s\")"),
        (withTrack("[session]\nname = \"band\"\nbuffer = 10\n"), "sessions/band.toml:3: buffer: expected a duration in quotes (buffer = \"10s\"), not an integer (10)"),
    ]

    @Test("every refusal is one line naming the file, the line and the key", arguments: sessionCases)
    func sessionRefusals(text: String, expected: String) {
        #expect(Self.refusal(text) == expected)
    }

    static let session = "[session]\nname = \"band\"\n"

    /// A [session] named band with `sessionLines`, then tracks T1... on channels 1..., each with
    /// `each` added.
    static func numberedTracks(_ sessionLines: String, count: Int, each: String) -> String {
        let tracks = (1...count).map { "[[track]]\nname = \"T\($0)\"\nsource = \($0)\n\(each)\n" }
        return "[session]\nname = \"band\"\n\(sessionLines)\n" + tracks.joined()
    }

    /// A [session] named band followed by `tracks`.
    static func afterSession(_ tracks: String) -> String {
        session + tracks
    }

    static let trackCases: [(String, String)] = [
        // Structure.
        (afterSession(""), "sessions/band.toml: no tracks: add a [[track]] table for each input, with its name and source"),
        ("track = []\n[session]\nname = \"band\"\n", "sessions/band.toml:1: track: no tracks: add a [[track]] table for each input, with its name and source"),
        (afterSession("[track]\nname = \"A\"\nsource = 1\n"), "sessions/band.toml:3: track: written [track]: each track is a [[track]] table (two brackets)"),
        ("track = [1, 2]\n[session]\nname = \"band\"\n", "sessions/band.toml:1: track: each track is a table of name, source, group and arm, not an integer (1)"),
        // Keys.
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = 1\nvolume = 3\n"),
         "sessions/band.toml:6: track 'Kick In': volume: unknown key in [[track]] (use name, source, group, arm or pan)"),
        (afterSession("[[track]]\nname = \"Kick In\"\nsorce = 1\n"), "sessions/band.toml:5: track 'Kick In': sorce: unknown key in [[track]] (did you mean source?)"),
        (afterSession("[[track]]\nsource = 1\n"), "sessions/band.toml:3: track 1: name: missing: every track needs a name (name = \"Kick In\")"),
        (afterSession("[[track]]\nname = \"A\"\nsource = 1\n[[track]]\nname = \"\"\nsource = 2\n"),
         "sessions/band.toml:7: track 2: name: empty: every track needs a name (name = \"Kick In\")"),
        (afterSession("[[track]]\nname = 1\nsource = 1\n"),
         "sessions/band.toml:4: track 1: name: expected the track's name in quotes (name = \"Kick In\"), not an integer (1)"),
        (afterSession("[[track]]\nname = \"Kick In\"\n"),
         "sessions/band.toml:3: track 'Kick In': source: missing: a capture channel (source = 1) or a port name or glob in quotes (source = \"system:capture_1\")"),
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = 1.5\n"),
         "sessions/band.toml:5: track 'Kick In': source: expected a capture channel (source = 1) or a port name or glob in quotes (source = \"system:capture_1\"), not a floating-point number (1.5)"),
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = [1, 2]\n"),
         "sessions/band.toml:5: track 'Kick In': source: expected a capture channel (source = 1) or a port name or glob in quotes (source = \"system:capture_1\"), not an array"),
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = 0\n"), "sessions/band.toml:5: track 'Kick In': source: capture channels count from 1, not 0"),
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = -3\n"), "sessions/band.toml:5: track 'Kick In': source: capture channels count from 1, not -3"),
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = \"\"\n"),
         "sessions/band.toml:5: track 'Kick In': source: empty: give a port name or glob (source = \"system:capture_1\", \"synth:out_*\") or a capture channel (source = 1)"),
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = \" \"\n"),
         "sessions/band.toml:5: track 'Kick In': source: empty: give a port name or glob (source = \"system:capture_1\", \"synth:out_*\") or a capture channel (source = 1)"),
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = \"3\"\n"),
         "sessions/band.toml:5: track 'Kick In': source: \"3\" is a string: a capture channel is a number without quotes (source = 3)"),
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = \"capture_1\"\n"),
         "sessions/band.toml:5: track 'Kick In': source: 'capture_1' names no JACK port: port names are client:port (source = \"system:capture_1\")"),
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = 1\narm = \"yes\"\n"),
         "sessions/band.toml:6: track 'Kick In': arm: expected true or false, not a string (\"yes\")"),
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = 1\ngroup = \"\"\n"),
         "sessions/band.toml:6: track 'Kick In': group: empty: leave group out for a track in a file of its own"),
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = 1\ngroup = 2\n"),
         "sessions/band.toml:6: track 'Kick In': group: expected the group's name in quotes (group = \"overheads\"), not an integer (2)"),
        // Names tracks must not share.
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = 1\n\n[[track]]\nname = \"Kick In\"\nsource = 2\n"),
         "sessions/band.toml:8: track 'Kick In': name: 'Kick In' is already the name of the track on line 3"),
        // Sources tracks must not share.
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = 1\n\n[[track]]\nname = \"Kick Out\"\nsource = 1\n"),
         "sessions/band.toml:9: track 'Kick Out': source: capture channel 1 is already the source of track 'Kick In' on line 3 (a source feeds one track)"),
        (afterSession("[[track]]\nname = \"A\"\nsource = \"sig:out_1\"\n[[track]]\nname = \"B\"\nsource = \"sig:out_2\"\n[[track]]\nname = \"C\"\nsource = \"sig:out_1\"\n"),
         "sessions/band.toml:11: track 'C': source: 'sig:out_1' is already the source of track 'A' on line 3 (a source feeds one track)"),
        (afterSession("[[track]]\nname = \"Gtr:Amp\"\nsource = 1\n[[track]]\nname = \"Gtr-Amp\"\nsource = 2\n"),
         "sessions/band.toml:7: track 'Gtr-Amp': name: 'Gtr-Amp' and track 'Gtr:Amp' on line 3 both become JACK port 'Gtr-Amp' (':' becomes '-')"),
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = 1\n[[track]]\nname = \"kick in\"\nsource = 2\n"),
         "sessions/band.toml:7: track 'kick in': name: 'kick in' gives the same file name as track 'Kick In' on line 3, but for case (one file on macOS and Windows)"),
        (afterSession("[[track]]\nname = \"AC/DC\"\nsource = 1\n[[track]]\nname = \"AC_DC\"\nsource = 2\n"),
         "sessions/band.toml:7: track 'AC_DC': name: 'AC_DC' gives the same file name as track 'AC/DC' on line 3 ('AC_DC')"),
        (afterSession("[[track]]\nname = \"Keys\"\nsource = 1\n[[track]]\nname = \"Keys L\"\nsource = 2\ngroup = \"Keys\"\n"),
         "sessions/band.toml:9: track 'Keys L': group: 'Keys' gives the same file name as track 'Keys' on line 3 ('Keys')"),
        (afterSession("[[track]]\nname = \"OH L\"\nsource = 1\ngroup = \"OH\"\n[[track]]\nname = \"OH R\"\nsource = 2\ngroup = \"oh\"\n"),
         "sessions/band.toml:10: track 'OH R': group: 'oh' gives the same file name as group 'OH' on line 3, but for case (one file on macOS and Windows)"),
        (afterSession("[[track]]\nname = \"\(String(repeating: "x", count: 240))\"\nsource = 1\n"),
         "sessions/band.toml:4: track '\(String(repeating: "x", count: 240))': name: too long for a file name: at most 239 bytes for take-NNN-<name>.wav to fit 255"),
        // Arming and channel counts.
        (afterSession("[[track]]\nname = \"Kick In\"\nsource = 1\narm = false\n"),
         "sessions/band.toml: no armed track: every [[track]] has arm = false (arm at least one)"),
        (numberedTracks("format = \"flac\"", count: 9, each: "group = \"kit\""),
         "sessions/band.toml:7: track 'T1': group: 'kit' has 9 armed tracks: FLAC holds at most 8 channels, not 9 (use PCM or float in a .wav, .w64 or .caf file)"),
        (numberedTracks("format = \"mp3\"\nlayout = \"interleaved\"", count: 3, each: ""),
         "sessions/band.toml:4: layout: the interleaved file would have 3 channels: MP3 holds at most 2 channels, not 3 (use PCM or float in a .wav, .w64 or .caf file)"),
    ]

    @Test("every refusal of a track names the track, its line and the key", arguments: trackCases)
    func trackRefusals(text: String, expected: String) {
        #expect(Self.refusal(text) == expected)
    }

    @Test("what the format could not hold is counted in armed tracks only")
    func disarmedTracksDoNotCount() throws {
        let text = "[session]\nname = \"band\"\nformat = \"flac\"\n"
            + (1...9).map { "[[track]]\nname = \"T\($0)\"\nsource = \($0)\ngroup = \"kit\"\narm = \($0 != 9)\n" }.joined()
        let session = try Self.parse(text)
        #expect(session.takeFiles == [SessionTakeFile(label: "kit", trackIndices: Array(0..<8))])
    }

    @Test("a group may share its name with a track inside it")
    func groupNamedAfterItsTrack() throws {
        let session = try Self.parse(Self.session + "[[track]]\nname = \"Bass\"\nsource = 1\ngroup = \"bass\"\n[[track]]\nname = \"Bass Amp\"\nsource = 2\ngroup = \"bass\"\n")
        #expect(session.takeFiles == [SessionTakeFile(label: "bass", trackIndices: [0, 1])])
    }

    @Test("an unknown key gets the key it most likely meant, if any is close", arguments: [
        ("rate", SessionFileReader.sessionKeys, "sample_rate"), ("samplerate", SessionFileReader.sessionKeys, "sample_rate"),
        ("Sample_Rate", SessionFileReader.sessionKeys, "sample_rate"), ("depth", SessionFileReader.sessionKeys, "bit_depth"),
        ("level", SessionFileReader.sessionKeys, "compression_level"), ("codec", SessionFileReader.sessionKeys, "encoding"),
        ("channel", SessionFileReader.trackKeys, "source"), ("armed", SessionFileReader.trackKeys, "arm"),
        ("group_name", SessionFileReader.trackKeys, "group"), ("track_name", SessionFileReader.trackKeys, "name"),
        ("nmae", SessionFileReader.trackKeys, "name"), ("channel", SessionFileReader.sessionKeys, nil),
        ("volume", SessionFileReader.trackKeys, nil), ("gain", SessionFileReader.trackKeys, nil), ("x", SessionFileReader.trackKeys, nil),
    ] as [(String, [String], String?)])
    func suggestions(key: String, known: [String], expected: String?) {
        #expect(SessionFileReader.closest(to: key, among: known) == expected)
    }

    @Test("inline tables and dotted keys load too; a key's error falls back to its table's line")
    func inlineTables() throws {
        let session = try Self.parse("""
            session = { name = "band", sample_rate = 48000 }
            track = [
              { name = "Kick In", source = 1 },
              { name = "Snare", source = 2, group = "snare" },
            ]
            """)
        #expect(session.sampleRate == 48000)
        #expect(session.tracks.map(\.name) == ["Kick In", "Snare"])
        #expect(session.tracks.map(\.line) == [2, 2])
        #expect(session.error(track: 1, key: "source", "x").description == "sessions/band.toml:2: track 'Snare': source: x")

        #expect(Self.refusal("session.name = \"band\"\nsession.sample_rate = \"48k\"\n[[track]]\nname = \"A\"\nsource = 1\n")
            == "sessions/band.toml:2: sample_rate: expected a whole number of hertz (sample_rate = 48000), not a string (\"48k\")")
        #expect(Self.refusal("session = { name = \"band\", rate = 1 }\n[[track]]\nname = \"A\"\nsource = 1\n")
            == "sessions/band.toml:1: rate: unknown key in [session] (did you mean sample_rate?)")
    }

    @Test("the first problem in the file is the one reported")
    func firstProblemFirst() {
        #expect(Self.refusal(Self.session + "b_key = 1\na_key = 2\n") == "sessions/band.toml:3: b_key: unknown key in [session] (use name, folder, sample_rate, format, encoding, bit_depth, endian, quality, compression_level, buffer, layout, align_latency, scene, tape or io)")
    }

    @Test("a name with a newline cannot break the line")
    func oneLineAlways() {
        let message = Self.refusal(Self.session + "[[track]]\nname = \"Kick\\nIn\"\nsource = 1\nvolume = 1\n")
        #expect(message == "sessions/band.toml:6: track 'Kick\\nIn': volume: unknown key in [[track]] (use name, source, group, arm or pan)")
        #expect(SessionFileError(path: "a\u{1B}[31m.toml", line: 1, message: "x").description == "a\\u{1B}[31m.toml:1: x")
    }

    // MARK: - Files on disk

    @Test("load reads the file and touches nothing: no folder is made, loaded or refused")
    func loadTouchesNothing() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/band.toml"
        try Self.withSession("folder = \"takes\"").write(toFile: path, atomically: true, encoding: .utf8)
        let session = try SessionDefinition.load(path: path)
        #expect(session.folder == directory + "/takes")
        #expect(session.sessionFilePath == path)
        #expect(!FileManager.default.fileExists(atPath: directory + "/takes"))

        try "[session]\nname = \"band\"\nfolder = \"takes\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: SessionFileError.self) { try SessionDefinition.load(path: path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["band.toml"])
    }

    @Test("a file that cannot be read, or is not UTF-8 text")
    func unreadable() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(Self.loadRefusal(directory + "/missing.toml") == "\(directory)/missing.toml: cannot read the session file: No such file or directory")
        #expect(Self.loadRefusal(directory) == "\(directory): cannot read the session file: Is a directory")

        let latin1 = directory + "/latin1.toml"
        try Data("[session]\nname = \"caf".utf8 + [0xE9] + "\"\n".utf8).write(to: URL(fileURLWithPath: latin1))
        #expect(Self.loadRefusal(latin1) == "\(latin1):2: not UTF-8 text (TOML files are UTF-8)")

        let binary = directory + "/binary.toml"
        try Data("[session]\n\n\u{0}".utf8).write(to: URL(fileURLWithPath: binary))
        #expect(Self.loadRefusal(binary) == "\(binary):3: a NUL byte: a session file is text")
    }

    @Test("a FIFO is refused at once as not a regular file, never waited on")
    func fifoIsRefused() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/band.toml"
        #expect(mkfifo(fifo, 0o644) == 0)
        // Today's open(2) without O_NONBLOCK waits for a writer forever; one opened here after a
        // few seconds lets a blocked test end (and fail) instead of hanging.
        let writerOpened = Locked(false)
        let watchdog = Thread {
            sleep(3)
            let descriptor = open(fifo, O_WRONLY | O_NONBLOCK)
            if descriptor >= 0 { writerOpened.withLock { $0 = true }; usleep(100_000); close(descriptor) }
        }
        watchdog.start()
        #expect(Self.loadRefusal(fifo) == "\(fifo): cannot read the session file: not a regular file (a FIFO)")
        #expect(!writerOpened.withLock { $0 }, "the load waited for a writer")
    }

    static func loadRefusal(_ path: String) -> String? {
        do {
            _ = try SessionDefinition.load(path: path)
            return nil
        } catch {
            return error.description
        }
    }

    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "jcap-session-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    // MARK: - The shipped examples

    static let sessionsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("sessions").path

    @Test("every example in sessions/ loads")
    func examplesLoad() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.sessionsDirectory).filter { $0.hasSuffix(".toml") }.sorted()
        #expect(names == ["band.toml", "demo.toml", "drums.toml", "stereo.toml"])
        for name in names {
            let path = Self.sessionsDirectory + "/" + name
            do {
                _ = try SessionDefinition.load(path: path)
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test("the demo session records tools/demo's test signal: six tracks and a stereo pair")
    func demoExample() throws {
        let session = try SessionDefinition.load(path: Self.sessionsDirectory + "/demo.toml")
        #expect(session.name == "demo")
        #expect(session.sampleRate == 48000)
        #expect(session.armedTracks.map(\.source) == (1...8).map { SessionTrackSource.port("testsignal:out_\($0)") })
        #expect(session.takeFiles.map(\.label) == ["Signal 1", "Signal 2", "Signal 3", "Signal 4", "Signal 5", "Signal 6", "Pair"])
        #expect(session.takeFiles.last?.trackIndices == [6, 7])
    }

    @Test("the stereo session: one two-channel file from capture channels 1 and 2")
    func stereoExample() throws {
        let session = try SessionDefinition.load(path: Self.sessionsDirectory + "/stereo.toml")
        #expect(session.armedTracks.map(\.source) == [.channel(1), .channel(2)])
        #expect(session.takeFiles == [SessionTakeFile(label: "Mix", trackIndices: [0, 1])])
        #expect(session.fileName(take: 1, file: session.takeFiles[0]) == "take-001-Mix.wav")
    }

    @Test("the drum session: channels 1-8, the overheads one stereo file")
    func drumsExample() throws {
        let session = try SessionDefinition.load(path: Self.sessionsDirectory + "/drums.toml")
        #expect(session.armedTracks.map(\.source) == (1...8).map { SessionTrackSource.channel($0) })
        #expect(session.armedTracks.map(\.name) == ["Kick In", "Kick Out", "Snare Top", "Snare Bottom", "Tom 1", "Floor Tom", "OH L", "OH R"])
        #expect(session.takeFiles.map { session.fileName(take: 1, file: $0) } == [
            "take-001-Kick In.wav", "take-001-Kick Out.wav", "take-001-Snare Top.wav", "take-001-Snare Bottom.wav",
            "take-001-Tom 1.wav", "take-001-Floor Tom.wav", "take-001-overheads.wav",
        ])
        #expect(session.bufferSeconds == 10)
    }

    @Test("the band session: 32 inputs, 31 armed, every channel once")
    func bandExample() throws {
        let session = try SessionDefinition.load(path: Self.sessionsDirectory + "/band.toml")
        #expect(session.tracks.map(\.source) == (1...32).map { SessionTrackSource.channel($0) })
        #expect(session.armedTracks.count == 31)
        #expect(session.takeFiles.count == 26)
        #expect(session.takeFiles.filter { $0.channelCount == 2 }.map(\.label) == ["overheads", "room", "keys", "synth", "audience"])
        #expect(session.folder.hasSuffix("sessions/band"))
    }
}
