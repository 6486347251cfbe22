import TOMLKit

/// Turns a session file's text into a `SessionDefinition`, or refuses it at its first problem
/// with one line naming the file, the line and the key. Everything a session can get wrong
/// without a JACK server is checked here (types, names, formats, channel counts), so the
/// recorder never finds it out halfway through creating a take's files.
///
/// The checks run in a fixed order: TOML syntax, the top-level tables, [session] (unknown keys,
/// then each key, then the format they make), each track in file order (unknown keys, then each
/// key), then what tracks must not share (names, JACK ports, file names, sources), arming, and each take
/// file's channel count.
struct SessionFileReader {
    typealias Table = SessionFileLocator.Table

    let text: String
    let path: String

    static let sessionKeys = ["name", "folder", "sample_rate", "format", "encoding", "bit_depth", "endian",
                              "quality", "compression_level", "buffer", "layout", "align_latency", "scene", "tape", "io"]
    static let trackKeys = ["name", "source", "group", "arm", "pan", "part"]
    /// The keys an unknown track key's message suggests: `part` is left out, as only a session
    /// split across hosts uses it (sessions/README.md).
    static let suggestedTrackKeys = ["name", "source", "group", "arm", "pan"]
    static let remoteKeys = ["address", "port", "token"]

    func read() throws(SessionFileError) -> SessionDefinition {
        let document = try parseTOML()
        let locator = SessionFileLocator(text: text)
        let errors = Errors(path: path, locator: locator)

        try checkTopLevel(document, errors)
        let session = try sessionTable(document, errors)
        let name = try sessionName(session, errors)
        let folder = try sessionFolder(session, name: name, errors)
        let layout = try sessionLayout(session, errors)
        let (settings, fileExtension, format, sampleRate) = try sessionFormat(session, errors)
        let bufferSeconds = try sessionBuffer(session, sampleRate: sampleRate, errors)
        let alignsToCaptureLatency = try KeyReader(table: session) { key, message in errors.session(key, message) }
            .bool("align_latency", expected: "true or false") ?? false

        let scene = try sessionLabel("scene", example: "scene = \"12A\"", session, errors)
        let tape = try sessionLabel("tape", example: "tape = \"Day 3\"", session, errors)

        let tracks = try readTracks(document, clientName: name, errors)
        try checkUniqueNames(tracks, fileExtension: fileExtension, errors)
        guard tracks.contains(where: \.armed) else {
            throw SessionFileError(path: path, message: "no armed track: every [[track]] has arm = false (arm at least one)")
        }
        let armedTracks = tracks.filter(\.armed)
        let takeFiles = Self.takeFiles(armedTracks, layout: layout)
        try checkChannelCounts(takeFiles, tracks: tracks, format: format, errors)

        var definition = SessionDefinition(name: name, sessionFilePath: path, folder: folder, sampleRate: sampleRate,
                                           settings: settings, fileExtension: fileExtension, format: format, layout: layout,
                                           bufferSeconds: bufferSeconds, tracks: tracks, takeFiles: takeFiles, locator: locator,
                                           alignsToCaptureLatency: alignsToCaptureLatency, scene: scene, tape: tape)
        definition.remote = try remoteTable(document, errors)
        return definition
    }

    /// The files a take writes: in `.mono`, one per ungrouped track and one per group, at the
    /// place of its first armed track; in `.interleaved`, one of every armed track.
    static func takeFiles(_ armedTracks: [SessionTrack], layout: SessionLayout) -> [SessionTakeFile] {
        switch layout {
        case .interleaved:
            return [SessionTakeFile(label: nil, trackIndices: Array(armedTracks.indices))]
        case .mono:
            var files: [SessionTakeFile] = []
            var fileOfGroup: [String: Int] = [:]
            for (index, track) in armedTracks.enumerated() {
                guard let group = track.group else {
                    files.append(SessionTakeFile(label: track.name, trackIndices: [index]))
                    continue
                }
                if let file = fileOfGroup[group] {
                    files[file].trackIndices.append(index)
                } else {
                    fileOfGroup[group] = files.count
                    files.append(SessionTakeFile(label: group, trackIndices: [index]))
                }
            }
            return files
        }
    }

    /// `track 'Kick In'`: how messages name a track.
    static func context(ofTrack name: String) -> String { "track '\(name)'" }

    /// Why a track may not have `source`: `earlier` has it already.
    static func sharedSource(_ source: SessionTrackSource, with earlier: SessionTrack) -> String {
        let written = switch source {
        case .channel(let channel): "capture channel \(channel)"
        case .port(let pattern): "'\(pattern)'"
        }
        return "\(written) is already the source of track '\(earlier.name)' on line \(earlier.line) (a source feeds one track)"
    }

    // MARK: - Syntax and structure

    private func parseTOML() throws(SessionFileError) -> TOMLTable {
        // TOMLKit hands the text to toml++ as a C string, which would end it at a NUL.
        if let nul = text.utf8.firstIndex(of: 0) {
            let line = text.utf8[..<nul].count { $0 == UInt8(ascii: "\n") } + 1
            throw SessionFileError(path: path, line: line, message: "a NUL character: a session file is text")
        }
        if let problem = TOMLPreflight.firstProblem(text) {
            throw SessionFileError(path: path, line: problem.line, message: problem.message)
        }
        do {
            return try TOMLTable(string: Self.replacingNULEscapes(text))
        } catch let error as TOMLParseError {
            let line = error.source.begin.line
            throw SessionFileError(path: path, line: line > 0 ? line : nil, message: "not valid TOML: " + Self.sentence(error.description))
        } catch {
            throw SessionFileError(path: path, message: "not valid TOML: \(error)")
        }
    }

    /// The text with every NUL written as an escape in a basic string (`\u0000`, `\U00000000`)
    /// written `_` instead. TOMLKit hands strings back as C strings, so a NUL would silently cut a
    /// name short (`Vo\u0000x` read as `Vo`); as `_` it is what the file name makes of every
    /// unsafe character (`SessionNaming.fileSystemSafe`), and JACK can name a port after it.
    /// Literal strings, comments and an escaped backslash before `u0000` are left alone.
    static func replacingNULEscapes(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "\\")) else { return text }
        enum Place { case outside, comment, basic, multilineBasic, literal, multilineLiteral }
        func starts(_ pattern: String, at index: Int) -> Bool {
            let pattern = Array(pattern.utf8)
            return index + pattern.count <= bytes.count && bytes[index..<index + pattern.count].elementsEqual(pattern)
        }
        /// The end of a closing `"""` or `'''` at `index`: up to two more quotes belong to the string.
        func closingEnd(at index: Int, quote: UInt8) -> Int {
            var end = index + 3
            while end < bytes.count, end < index + 5, bytes[end] == quote { end += 1 }
            return end
        }
        let quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'"), newline = UInt8(ascii: "\n")
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var place = Place.outside
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            var next = index + 1
            switch place {
            case .outside:
                if byte == UInt8(ascii: "#") {
                    place = .comment
                } else if starts("\"\"\"", at: index) {
                    place = .multilineBasic
                    next = index + 3
                } else if starts("'''", at: index) {
                    place = .multilineLiteral
                    next = index + 3
                } else if byte == quote {
                    place = .basic
                } else if byte == apostrophe {
                    place = .literal
                }
            case .comment:
                if byte == newline { place = .outside }
            case .basic, .multilineBasic:
                if byte == UInt8(ascii: "\\") {
                    if starts("\\u0000", at: index) || starts("\\U00000000", at: index) {
                        result.append(UInt8(ascii: "_"))
                        index += bytes[index + 1] == UInt8(ascii: "u") ? 6 : 10
                        continue
                    }
                    // Any other escape: the backslash and what it escapes (a quote, a backslash).
                    next = min(index + 2, bytes.count)
                } else if place == .basic, byte == quote || byte == newline {
                    place = .outside
                } else if place == .multilineBasic, starts("\"\"\"", at: index) {
                    next = closingEnd(at: index, quote: quote)
                    place = .outside
                }
            case .literal:
                if byte == apostrophe || byte == newline { place = .outside }
            case .multilineLiteral:
                if starts("'''", at: index) {
                    next = closingEnd(at: index, quote: apostrophe)
                    place = .outside
                }
            }
            result += bytes[index..<next]
            index = next
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// toml++'s "Error while parsing ..." as the rest of a message: "error while parsing ...".
    private static func sentence(_ text: String) -> String {
        guard let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase == true else { return text }
        return first.lowercased() + text.dropFirst()
    }

    private func checkTopLevel(_ document: TOMLTable, _ errors: Errors) throws(SessionFileError) {
        let unknown = document.keys.filter { $0 != "session" && $0 != "track" && $0 != "remote" }
        guard let key = errors.firstInFile(unknown, in: .root) else { return }
        // nil only for a key TOMLKit cannot look up (one with a NUL escape): still unknown.
        let type = document[key]?.type
        let message: String
        if type == .table || type == .array {
            if let suggestion = Self.closest(to: key, among: ["session", "track"]) {
                let written = type == .array ? "[[\(key)]]" : "[\(key)]"
                message = "unknown table \(written) (did you mean \(suggestion == "track" ? "[[track]]" : "[session]")?)"
            } else {
                message = "unknown table (a session file has one [session] table and a [[track]] table for each input)"
            }
        } else if Self.sessionKeys.contains(key) {
            message = "belongs in [session]: put it after the [session] header"
        } else if Self.trackKeys.contains(key) {
            message = "belongs in a [[track]]: put it after a [[track]] header"
        } else {
            message = "unknown key at the top of the file (a session file has one [session] table and a [[track]] table for each input)"
        }
        throw errors.root(key, message)
    }

    private func sessionTable(_ document: TOMLTable, _ errors: Errors) throws(SessionFileError) -> TOMLTable {
        guard let value = document["session"] else {
            throw SessionFileError(path: path, message: "no [session] table: a session file starts with [session] and the session's name (name = \"band\")")
        }
        guard value.type == .table, let table = value.table else {
            throw errors.root("session", value.type == .array
                ? "a session has one [session] table, not [[session]]"
                : "expected a [session] table, not \(Self.describe(value))")
        }
        if let key = errors.firstInFile(table.keys.filter { !Self.sessionKeys.contains($0) }, in: .table("session")) {
            throw errors.session(key, Self.unknownKeyMessage(key, in: "[session]", known: Self.sessionKeys))
        }
        return table
    }

    // MARK: - [remote]

    /// `[remote]`: the browser remote's address, port and token (only their form here: the
    /// token's characters are the remote's to check).
    private func remoteTable(_ document: TOMLTable, _ errors: Errors) throws(SessionFileError) -> SessionRemote? {
        guard let value = document["remote"] else { return nil }
        guard value.type == .table, let table = value.table else {
            throw errors.root("remote", "expected a [remote] table (port = 8080), not \(Self.describe(value))")
        }
        if let key = errors.firstInFile(table.keys.filter { !Self.remoteKeys.contains($0) }, in: .table("remote")) {
            throw errors.remote(key, Self.unknownKeyMessage(key, in: "[remote]", known: Self.remoteKeys))
        }
        let keys = KeyReader(table: table) { key, message in errors.remote(key, message) }
        guard let port = try keys.integer("port", expected: "a port number (port = 8080)") else {
            throw errors.remote("port", "missing: the port the browser remote listens on (port = 8080)")
        }
        guard (0...65_535).contains(port) else {
            throw errors.remote("port", "\(port) is not a port: 1 to 65535 (0: any free port)")
        }
        let address = try keys.string("address", expected: "an address in quotes (address = \"0.0.0.0\")")
        if let address, address.trimmingWhitespace().isEmpty {
            throw errors.remote("address", "empty: leave address out to listen on 127.0.0.1 (this machine only)")
        }
        let token = try keys.string("token", expected: "the token in quotes (token = \"...\")")
        return SessionRemote(address: address, port: port, token: token)
    }

    // MARK: - [session]

    private func sessionName(_ session: TOMLTable, _ errors: Errors) throws(SessionFileError) -> String {
        let keys = KeyReader(table: session) { key, message in errors.session(key, message) }
        guard let name = try keys.string("name", expected: "the session's name in quotes (name = \"band\")") else {
            throw errors.session("name", "missing: the session's name, also its JACK client name (name = \"band\")")
        }
        guard !name.trimmingWhitespace().isEmpty else {
            throw errors.session("name", "empty: the session's name is also its JACK client name (name = \"band\")")
        }
        guard !name.contains(":") else {
            throw errors.session("name", "'\(name)' cannot be a JACK client name: ':' separates client and port names")
        }
        let bytes = name.utf8.count
        guard bytes <= SessionNaming.maximumClientNameBytes else {
            throw errors.session("name", "'\(name)' is \(bytes) bytes, too long for a JACK client name (at most "
                + "\(SessionNaming.maximumClientNameBytes): JACK allows \(SessionNaming.jackClientNameSize - 1), and makes a taken name unique with "
                + "\(SessionNaming.jackUniqueSuffixLength) more)")
        }
        return name
    }

    private func sessionFolder(_ session: TOMLTable, name: String, _ errors: Errors) throws(SessionFileError) -> String {
        let keys = KeyReader(table: session) { key, message in errors.session(key, message) }
        guard let folder = try keys.string("folder", expected: "a folder in quotes (folder = \"takes\")") else {
            return Self.resolve(folder: SessionNaming.fileSystemSafe(name), sessionFilePath: path)
        }
        guard !folder.trimmingWhitespace().isEmpty else {
            throw errors.session("folder", "empty: leave folder out to record into a folder named after the session")
        }
        guard !folder.hasPrefix("~") else {
            throw errors.session("folder", "'\(folder)': '~' is not expanded (give the folder in full, or relative to the session file)")
        }
        return Self.resolve(folder: folder, sessionFilePath: path)
    }

    /// `scene` or `tape`: a film sound recorder's labels, written to each take file's iXML.
    private func sessionLabel(_ key: String, example: String, _ session: TOMLTable, _ errors: Errors) throws(SessionFileError) -> String? {
        let keys = KeyReader(table: session) { key, message in errors.session(key, message) }
        guard let text = try keys.string(key, expected: "text in quotes (\(example))") else { return nil }
        guard !text.trimmingWhitespace().isEmpty else {
            throw errors.session(key, "empty: leave \(key) out, or give it in quotes (\(example))")
        }
        return text
    }

    /// A folder relative to the session file's directory; an absolute one as it is.
    static func resolve(folder: String, sessionFilePath: String) -> String {
        guard !folder.hasPrefix("/"), let slash = sessionFilePath.lastIndex(of: "/") else { return folder }
        return String(sessionFilePath[...slash]) + folder
    }

    private func sessionLayout(_ session: TOMLTable, _ errors: Errors) throws(SessionFileError) -> SessionLayout {
        let keys = KeyReader(table: session) { key, message in errors.session(key, message) }
        let expected = "\"mono\" (a file per track or group) or \"interleaved\" (one file of every armed track)"
        guard let text = try keys.string("layout", expected: expected) else { return .mono }
        guard let layout = SessionLayout(rawValue: text.lowercased()) else {
            throw errors.session("layout", "expected \(expected), not \"\(text)\"")
        }
        return layout
    }

    /// The format keys as jcap's flags would set them, and the format they resolve to.
    private func sessionFormat(_ session: TOMLTable, _ errors: Errors) throws(SessionFileError)
        -> (RecordingSettings, fileExtension: String, FileFormat, sampleRate: Int?) {
        let keys = KeyReader(table: session) { key, message in errors.session(key, message) }
        var settings = RecordingSettings()

        let sampleRate = try keys.integer("sample_rate", expected: "a whole number of hertz (sample_rate = 48000)")

        let containers = FileContainer.allCases.map(\.rawValue).joinedAsPhrase()
        var fileExtension = SessionDefinition.defaultFileExtension
        if let text = try keys.string("format", expected: "a container in quotes (format = \"wav\"): \(containers)") {
            fileExtension = text.lowercased()
            if fileExtension.hasPrefix(".") { fileExtension.removeFirst() }
            do {
                _ = try FileContainer(fileExtension: fileExtension)
            } catch {
                if case .format(let formatError) = error { throw errors.session("format", formatError.description) }
                if let encoding = AudioFormat(name: fileExtension) {
                    throw errors.session("format", "'\(text)' is an encoding, not a container: set encoding = \"\(encoding.rawValue)\" "
                        + "and format to \(containers)")
                }
                throw errors.session("format", "'\(text)' is not a container jcap writes (use \(containers))")
            }
        }

        if let text = try keys.string("encoding", expected: "an encoding in quotes (encoding = \"pcm\"): \(AudioFormat.namesList)") {
            guard let encoding = AudioFormat(name: text) else {
                throw errors.session("encoding", FormatError.unknownFormat(text).description)
            }
            settings.format = encoding
        }

        var floatFromBitDepth = false
        if let value = session["bit_depth"] {
            if value.type == .int, let bits = value.int {
                settings.bitDepth = bits
            } else if value.type == .string, let text = value.string, text.lowercased() == "float" {
                // `float` as a bit depth: 32-bit float samples.
                if let encoding = settings.format, encoding != .float {
                    throw errors.session("bit_depth", "\"float\" means encoding \"float\", but encoding is \"\(encoding.rawValue)\" "
                        + "(give a number of bits)")
                }
                settings.format = .float
                settings.bitDepth = 32
                floatFromBitDepth = true
            } else {
                throw errors.session("bit_depth", "expected a number of bits (bit_depth = 24) or \"float\", not \(Self.describe(value))")
            }
        }

        if let text = try keys.string("endian", expected: "\"little\" or \"big\"") {
            guard let order = Endianness(rawValue: text.lowercased()) else {
                throw errors.session("endian", "expected \"little\" or \"big\", not \"\(text)\"")
            }
            settings.endianness = order
        }
        if let text = try keys.string("io", expected: "\"auto\", \"direct\" or \"buffered\"") {
            guard let mode = DiskIO(rawValue: text.lowercased()) else {
                throw errors.session("io", "expected \"auto\", \"direct\" or \"buffered\", not \"\(text)\"")
            }
            settings.diskIO = mode
        }
        settings.quality = try keys.number("quality", expected: "a number from 0 (smallest file) to 1 (best quality), e.g. quality = 0.6")
        settings.compressionLevel = try keys.integer("compression_level",
                                                     expected: "a whole number from 0 (fastest) to 8 (smallest), e.g. compression_level = 5")

        let format: FileFormat
        do {
            format = try settings.resolveFormat(forPath: "take." + fileExtension)
            if let sampleRate { try format.validate(sampleRate: sampleRate) }
        } catch {
            throw errors.session(Self.key(blamedFor: error, present: Set(session.keys), floatFromBitDepth: floatFromBitDepth),
                                 error.description)
        }
        return (settings, fileExtension, format, sampleRate)
    }

    /// The key a format error is about: the setting the format cannot have, or, where two
    /// settings disagree (ALAC in a .wav), the more specific one the file sets.
    private static func key(blamedFor error: CaptureError, present: Set<String>, floatFromBitDepth: Bool) -> String {
        let encodingKey = floatFromBitDepth ? "bit_depth" : present.contains("encoding") ? "encoding" : "format"
        guard case .format(let formatError) = error else { return "format" }
        switch formatError {
        case .containerCannotHold: return encodingKey
        case .bitDepthNotAvailable, .bitDepthNotApplicable: return present.contains("bit_depth") ? "bit_depth" : encodingKey
        case .endiannessNotApplicable, .endiannessNotAvailable: return "endian"
        case .qualityNotApplicable, .qualityOutOfRange: return "quality"
        case .compressionLevelNotApplicable, .compressionLevelOutOfRange: return "compression_level"
        case .sampleRateOutOfRange, .sampleRateNotAvailable: return "sample_rate"
        default: return "format"
        }
    }

    private func sessionBuffer(_ session: TOMLTable, sampleRate: Int?, _ errors: Errors) throws(SessionFileError) -> Double {
        let keys = KeyReader(table: session) { key, message in errors.session(key, message) }
        guard let text = try keys.string("buffer", expected: "a duration in quotes (buffer = \"10s\")") else {
            return SessionDefinition.defaultBufferSeconds
        }
        let length: CaptureDuration
        do {
            length = try CaptureDuration(parsing: text)
        } catch {
            throw errors.session("buffer", error.description)
        }
        let seconds: Double
        switch length {
        case .seconds(let numerator, let denominator):
            seconds = Double(numerator) / Double(denominator)
        case .frames(let frames):
            guard let sampleRate, sampleRate > 0 else {
                throw errors.session("buffer", "'\(text)' is in frames, which needs sample_rate (or give seconds: buffer = \"10s\")")
            }
            seconds = Double(frames) / Double(sampleRate)
        }
        // The ring's length; whether this machine can hold it is known only once the server's
        // rate and the armed tracks are (MemoryBudget, when recording).
        guard seconds >= 0.01 else {
            throw errors.session("buffer", CaptureError.badDuration(text, reason: "the buffer must hold at least 10ms").description)
        }
        return seconds
    }

    // MARK: - Tracks

    private func readTracks(_ document: TOMLTable, clientName: String, _ errors: Errors) throws(SessionFileError) -> [SessionTrack] {
        let noTracks = "no tracks: add a [[track]] table for each input, with its name and source"
        guard let value = document["track"] else { throw SessionFileError(path: path, message: noTracks) }
        guard value.type == .array, let array = value.array else {
            throw errors.root("track", value.type == .table
                ? "written [track]: each track is a [[track]] table (two brackets)"
                : "expected [[track]] tables, not \(Self.describe(value))")
        }
        guard !array.isEmpty else { throw errors.root("track", noTracks) }

        var tracks: [SessionTrack] = []
        for (index, element) in array.enumerated() {
            guard element.type == .table, let table = element.table else {
                throw errors.root("track", "each track is a table of name, source, group and arm, not \(Self.describe(element))")
            }
            tracks.append(try readTrack(table, index: index, clientName: clientName, errors))
        }
        return tracks
    }

    private func readTrack(_ table: TOMLTable, index: Int, clientName: String, _ errors: Errors) throws(SessionFileError)
        -> SessionTrack {
        let element = Table.element("track", index)
        // Messages name the track by its name once it has a usable one, by its position before.
        let usableName = table["name"]?.string.flatMap { $0.trimmingWhitespace().isEmpty ? nil : $0 }
        if let key = errors.firstInFile(table.keys.filter { !Self.trackKeys.contains($0) }, in: element) {
            throw errors.track(index, key, name: usableName, Self.unknownKeyMessage(key, in: "[[track]]", known: Self.suggestedTrackKeys))
        }

        let unnamed = KeyReader(table: table) { key, message in errors.track(index, key, name: nil, message) }
        guard let name = try unnamed.string("name", expected: "the track's name in quotes (name = \"Kick In\")") else {
            throw errors.track(index, "name", name: nil, "missing: every track needs a name (name = \"Kick In\")")
        }
        guard !name.trimmingWhitespace().isEmpty else {
            throw errors.track(index, "name", name: nil, "empty: every track needs a name (name = \"Kick In\")")
        }
        let keys = KeyReader(table: table) { key, message in errors.track(index, key, name: name, message) }

        let sourceExample = "a capture channel (source = 1) or a port name or glob in quotes (source = \"system:capture_1\")"
        guard let sourceValue = table["source"] else {
            throw errors.track(index, "source", name: name, "missing: \(sourceExample)")
        }
        let source: SessionTrackSource
        if sourceValue.type == .int, let channel = sourceValue.int {
            guard channel >= 1 else {
                throw errors.track(index, "source", name: name, "capture channels count from 1, not \(channel)")
            }
            source = .channel(channel)
        } else if sourceValue.type == .string, let port = sourceValue.string {
            try checkPortSource(port, index: index, trackName: name, errors)
            source = .port(port)
        } else {
            throw errors.track(index, "source", name: name, "expected \(sourceExample), not \(Self.describe(sourceValue))")
        }

        let group = try keys.string("group", expected: "the group's name in quotes (group = \"overheads\")")
        if let group, group.trimmingWhitespace().isEmpty {
            throw errors.track(index, "group", name: name, "empty: leave group out for a track in a file of its own")
        }
        let armed = try keys.bool("arm", expected: "true or false") ?? true
        let part = try keys.string("part", expected: "the part's name in quotes (part = \"stage\")")
        if let part, part.trimmingWhitespace().isEmpty {
            throw errors.track(index, "part", name: name, "empty: leave part out for a track every host's --part leaves out")
        }
        let panExample = "a position from -1 (left) to 1 (right), e.g. pan = -0.5"
        let pan = try keys.number("pan", expected: panExample)
        if let pan, !(-1...1).contains(pan) {
            throw errors.track(index, "pan", name: name, "\(pan) is out of range: use \(panExample)")
        }

        var track = SessionTrack(name: name, portName: SessionNaming.portName(forTrack: name, clientName: clientName),
                                 source: source, group: group, armed: armed,
                                 line: errors.locator.line(of: element) ?? 1)
        track.pan = pan.map { Float($0) }
        track.part = part
        return track
    }

    /// A port source must be able to match: not empty, and with a client part when it names one
    /// port exactly (a glob may leave it to the pattern).
    private func checkPortSource(_ port: String, index: Int, trackName: String, _ errors: Errors) throws(SessionFileError) {
        guard !port.trimmingWhitespace().isEmpty else {
            throw errors.track(index, "source", name: trackName,
                               "empty: give a port name or glob (source = \"system:capture_1\", \"synth:out_*\") or a capture channel (source = 1)")
        }
        guard port.contains(":") || PortPattern.isGlob(port) else {
            if port.allSatisfy({ $0.isASCII && $0.isNumber }) {
                throw errors.track(index, "source", name: trackName,
                                   "\"\(port)\" is a string: a capture channel is a number without quotes (source = \(port))")
            }
            throw errors.track(index, "source", name: trackName,
                               "'\(port)' names no JACK port: port names are client:port (source = \"system:capture_1\")")
        }
    }

    /// Tracks must differ as names, as JACK ports and as file names (ignoring case, as macOS and
    /// Windows do); a group's file must not take a file name of a track outside it. Each clash is
    /// reported at the later of the two, naming the earlier.
    private func checkUniqueNames(_ tracks: [SessionTrack], fileExtension: String, _ errors: Errors) throws(SessionFileError) {
        let maximumLabelBytes = SessionNaming.maximumLabelBytes(fileExtension: fileExtension)
        var trackByName: [String: Int] = [:]
        var trackByPort: [String: Int] = [:]
        var trackByFileName: [String: Int] = [:]
        for (index, track) in tracks.enumerated() {
            let name = track.name
            if let earlier = trackByName[name] {
                throw errors.track(index, "name", name: name, "'\(name)' is already the name of the track on line \(tracks[earlier].line)")
            }
            if let earlier = trackByPort[track.portName] {
                let other = tracks[earlier].name
                let why = name.contains(":") || other.contains(":") ? "':' becomes '-'" : "cut to fit JACK's port name size"
                throw errors.track(index, "name", name: name, "'\(name)' and track '\(other)' on line \(tracks[earlier].line) "
                    + "both become JACK port '\(track.portName)' (\(why))")
            }
            let fileKey = SessionNaming.fileNameKey(name)
            if let earlier = trackByFileName[fileKey] {
                throw errors.track(index, "name", name: name, Self.sameFileName(name, as: "track '\(tracks[earlier].name)' on line \(tracks[earlier].line)",
                                                                                 other: tracks[earlier].name))
            }
            guard SessionNaming.fileSystemSafe(name).utf8.count <= maximumLabelBytes else {
                throw errors.track(index, "name", name: name, "too long for a file name: at most \(maximumLabelBytes) bytes "
                    + "for take-NNN-<name>.\(fileExtension) to fit \(SessionNaming.maximumFileNameBytes)")
            }
            trackByName[name] = index
            trackByPort[track.portName] = index
            trackByFileName[fileKey] = index
        }

        // A source feeds one track: JACK connects a port to a source once, so a second track
        // would record nothing (and the recorder refuses a channel listed twice).
        var trackBySource: [SessionTrackSource: Int] = [:]
        for (index, track) in tracks.enumerated() {
            if let earlier = trackBySource[track.source] {
                throw errors.track(index, "source", name: track.name, Self.sharedSource(track.source, with: tracks[earlier]))
            }
            trackBySource[track.source] = index
        }

        var groupByFileName: [String: (name: String, firstTrack: Int)] = [:]
        for (index, track) in tracks.enumerated() {
            guard let group = track.group else { continue }
            let fileKey = SessionNaming.fileNameKey(group)
            if let earlier = groupByFileName[fileKey] {
                guard earlier.name != group else { continue }
                throw errors.track(index, "group", name: track.name,
                                   Self.sameFileName(group, as: "group '\(earlier.name)' on line \(tracks[earlier.firstTrack].line)",
                                                     other: earlier.name))
            }
            groupByFileName[fileKey] = (group, index)
            if let clash = trackByFileName[fileKey], tracks[clash].group != group {
                throw errors.track(index, "group", name: track.name,
                                   Self.sameFileName(group, as: "track '\(tracks[clash].name)' on line \(tracks[clash].line)",
                                                     other: tracks[clash].name))
            }
            guard SessionNaming.fileSystemSafe(group).utf8.count <= maximumLabelBytes else {
                throw errors.track(index, "group", name: track.name, "too long for a file name: at most \(maximumLabelBytes) bytes "
                    + "for take-NNN-<group>.\(fileExtension) to fit \(SessionNaming.maximumFileNameBytes)")
            }
        }
    }

    private static func sameFileName(_ name: String, as earlier: String, other: String) -> String {
        let safe = SessionNaming.fileSystemSafe(name)
        if safe == SessionNaming.fileSystemSafe(other) {
            return "'\(name)' gives the same file name as \(earlier) ('\(safe)')"
        }
        return "'\(name)' gives the same file name as \(earlier), but for case (one file on macOS and Windows)"
    }

    /// Every file must hold its channels in the format: a group's at its first track's `group`,
    /// the interleaved file's at `layout`.
    private func checkChannelCounts(_ files: [SessionTakeFile], tracks: [SessionTrack], format: FileFormat,
                                    _ errors: Errors) throws(SessionFileError) {
        for file in files {
            do {
                try format.validate(channels: file.channelCount)
            } catch {
                guard let group = file.label else {
                    throw errors.session("layout", "the interleaved file would have \(file.channelCount) channels: \(error.description)")
                }
                let first = tracks.firstIndex { $0.group == group } ?? 0
                throw errors.track(first, "group", name: tracks[first].name,
                                   "'\(group)' has \(file.channelCount) armed tracks: \(error.description)")
            }
        }
    }

    // MARK: - Messages

    /// "a string ("48k")", "a floating-point number (1.5)", "a table".
    static func describe(_ value: TOMLValueConvertible) -> String {
        switch value.type {
        case .string: "a string (\"\(value.string ?? "")\")"
        case .int: "an integer (\(value.int.map(String.init) ?? ""))"
        case .double: "a floating-point number (\(value.double.map { "\($0)" } ?? ""))"
        case .bool: "a boolean (\(value.bool.map { "\($0)" } ?? ""))"
        case .table: "a table"
        case .array: "an array"
        case .date: "a date"
        case .time: "a time"
        case .dateTime: "a date and time"
        }
    }

    private static func unknownKeyMessage(_ key: String, in table: String, known: [String]) -> String {
        if let suggestion = closest(to: key, among: known) {
            return "unknown key in \(table) (did you mean \(suggestion)?)"
        }
        return "unknown key in \(table) (use \(known.joinedAsPhrase()))"
    }

    /// The known name a misspelt or differently named key most likely meant: a word other tools
    /// use for it (`channel` for `source`, `rate` for `sample_rate`), a known name it contains or
    /// is part of (`track_name`, `group_name`, `depth`), or one within a couple of edits, fewer for short keys
    /// (`smaple_rate`, `bit-depth`, `tracks`, but not `rate` for `name`). nil when none is close.
    static func closest(to key: String, among known: [String]) -> String? {
        let lowered = key.lowercased()
        if let synonym = synonyms[lowered], known.contains(synonym) { return synonym }
        let allowed = min(2, max(1, lowered.count / 4))
        let scored = known.map { (name: $0, distance: editDistance(lowered, $0)) }
        if let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= allowed, best.distance < lowered.count {
            return best.name
        }
        let related = known.filter { $0.count >= 3 && lowered.count >= 3 && ($0.contains(lowered) || lowered.contains($0)) }
        return related.max { $0.count < $1.count }
    }

    /// Names other recorders and DAWs give the session file's keys.
    private static let synonyms = [
        "channel": "source", "input": "source", "port": "source", "armed": "arm", "record": "arm", "rec": "arm",
        "rate": "sample_rate", "samplerate": "sample_rate", "srate": "sample_rate", "container": "format",
        "extension": "format", "codec": "encoding", "bits": "bit_depth", "bitdepth": "bit_depth", "directory": "folder",
        "dir": "folder", "path": "folder", "client": "name", "client_name": "name", "endianness": "endian",
        "byte_order": "endian", "ring": "buffer",
    ]

    /// Edits between two names, by characters: insertions, deletions, substitutions and swaps of
    /// neighbours (the commonest typing slip, `nmae`), each one edit (optimal string alignment).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        // distances[i][j]: edits from a's first i characters to b's first j.
        var distances = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { distances[i][0] = i }
        for j in 0...b.count { distances[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let substitution = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(distances[i - 1][j] + 1, distances[i][j - 1] + 1, distances[i - 1][j - 1] + substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, distances[i - 2][j - 2] + 1)
                }
                distances[i][j] = best
            }
        }
        return distances[a.count][b.count]
    }
}

extension SessionFileReader {
    /// Errors located by the file's text: the key's line, else its table's.
    struct Errors {
        let path: String
        let locator: SessionFileLocator

        func root(_ key: String, _ message: String) -> SessionFileError {
            SessionFileError(path: path, line: locator.line(ofKey: key, in: .root), key: key, message: message)
        }

        func session(_ key: String, _ message: String) -> SessionFileError {
            let table = SessionFileLocator.Table.table("session")
            return SessionFileError(path: path, line: locator.line(ofKey: key, in: table) ?? locator.line(of: table), key: key, message: message)
        }

        func remote(_ key: String, _ message: String) -> SessionFileError {
            let table = SessionFileLocator.Table.table("remote")
            return SessionFileError(path: path, line: locator.line(ofKey: key, in: table) ?? locator.line(of: table), key: key,
                                    context: "[remote]", message: message)
        }

        func track(_ index: Int, _ key: String, name: String?, _ message: String) -> SessionFileError {
            let table = SessionFileLocator.Table.element("track", index)
            return SessionFileError(path: path, line: locator.line(ofKey: key, in: table) ?? locator.line(of: table), key: key,
                                    context: name.map(SessionFileReader.context(ofTrack:)) ?? "track \(index + 1)", message: message)
        }

        /// Of `keys` in `table`, the one written first in the file (TOMLKit lists keys sorted), so
        /// the first of several problems is the one reported.
        func firstInFile(_ keys: [String], in table: SessionFileLocator.Table) -> String? {
            keys.min { (locator.line(ofKey: $0, in: table) ?? .max, $0) < (locator.line(ofKey: $1, in: table) ?? .max, $1) }
        }
    }
}

/// Reads typed values from one table, refusing a value of the wrong type with what was expected.
private struct KeyReader {
    let table: TOMLTable
    let fail: (String, String) -> SessionFileError

    func string(_ key: String, expected: String) throws(SessionFileError) -> String? {
        guard let value = table[key] else { return nil }
        guard value.type == .string, let string = value.string else { throw mismatch(key, value, expected) }
        return string
    }

    func integer(_ key: String, expected: String) throws(SessionFileError) -> Int? {
        guard let value = table[key] else { return nil }
        guard value.type == .int, let integer = value.int else { throw mismatch(key, value, expected) }
        return integer
    }

    /// An integer or a floating-point number.
    func number(_ key: String, expected: String) throws(SessionFileError) -> Double? {
        guard let value = table[key] else { return nil }
        if value.type == .int, let integer = value.int { return Double(integer) }
        guard value.type == .double, let number = value.double else { throw mismatch(key, value, expected) }
        return number
    }

    func bool(_ key: String, expected: String) throws(SessionFileError) -> Bool? {
        guard let value = table[key] else { return nil }
        guard value.type == .bool, let bool = value.bool else { throw mismatch(key, value, expected) }
        return bool
    }

    private func mismatch(_ key: String, _ value: TOMLValueConvertible, _ expected: String) -> SessionFileError {
        fail(key, "expected \(expected), not \(SessionFileReader.describe(value))")
    }
}
