/// A studio session: what an engineer sets up once (which inputs, named how, into which files)
/// and then records take after take. Loaded from a TOML session file (`sessions/*.toml`; every
/// key is in `sessions/README.md`) and checked whole before anything is made of it, so a session
/// that loads can be recorded, but for what only the JACK server can tell (a channel it lacks,
/// another sample rate): those are named with `error(track:key:_:)` and `error(sessionKey:_:)`,
/// in the same one-line form as the file's own errors.
///
/// Loading reads the file and nothing else: no folder or file is created or touched.
public struct SessionDefinition: Sendable, Equatable {
    /// `[session] name`: the session's name, also its JACK client name.
    public var name: String
    /// The path the session was loaded from, as given.
    public var sessionFilePath: String
    /// Where takes go: `[session] folder` resolved against the session file's directory (default:
    /// the name, made file-system safe); an absolute folder stays as it is. Not created here.
    public var folder: String
    /// `[session] sample_rate`: recording is refused when the server runs at another rate, so
    /// takes recorded on different days match. nil: whatever the server runs.
    public var sampleRate: Int?
    /// The encoding settings, as jcap's flags would set them (`encoding`, `bit_depth`, `endian`,
    /// `quality`, `compression_level`).
    public var settings: RecordingSettings
    /// `[session] format`: the container, and the take files' extension ("wav" by default).
    public var fileExtension: String
    /// `settings` resolved for `fileExtension`: what every take file is.
    public var format: FileFormat
    /// `[session] layout`: a file per track or group, or one file of every armed track.
    public var layout: SessionLayout
    /// `[session] scene` and `tape`: the labels a film sound recorder writes to each take file's
    /// iXML (SCENE, TAPE), nil when the file has none.
    public var scene: String?
    public var tape: String?
    /// `[session] buffer`: how long the disk may stall without a loss, in seconds (default 4).
    public var bufferSeconds: Double
    /// `[session] align_latency` (or set by the caller): each take is aligned to its
    /// sources' capture latency (`LatencyAlignment`).
    public var alignsToCaptureLatency: Bool
    /// Set by the caller (the session file has no key for them): kept before a take started by sound or
    /// the transport, and the silence that ends a take started by sound.
    public var preRoll: CaptureDuration?
    public var triggerStop: CaptureDuration?
    /// `[remote]`: the browser remote to serve, if the file asks for one.
    public var remote: SessionRemote?
    /// Every track, in file order.
    public var tracks: [SessionTrack]
    /// The tracks with `arm` not false, in file order: armed when the session opens (every track
    /// gets a JACK port; `StudioSession.setArmed` arms and disarms them between takes).
    public var armedTracks: [SessionTrack]
    /// The files one take of `armedTracks` writes, in order of their first track (a session
    /// makes each take's files from the tracks armed then).
    public var takeFiles: [SessionTakeFile]

    /// Where the file's keys are, for errors found after loading.
    let locator: SessionFileLocator

    /// The default ring buffer's length, as a recording's `bufferSeconds`.
    public static let defaultBufferSeconds = 4.0
    /// The default container.
    public static let defaultFileExtension = "wav"
    /// The largest session file read: a session of a thousand tracks is far smaller, and a larger
    /// file is surely not a session.
    package static let maximumFileBytes = 4 << 20

    /// The part this definition was narrowed to (`restricted(toPart:)`); nil: every track.
    public var part: String?
    /// Follow every take on the master's clock from the timecode on this port (`jcap session
    /// --master-clock`, `CaptureConfiguration.masterClockPort`); nil: the server's clock.
    public var masterClockPort: String?

    /// This session with only the tracks whose `part` is `name` (armed as the file says), for a
    /// host that records its share of a session split across hosts: each host writes its tracks'
    /// files and its own take log, the take numbers and names as the other hosts'.
    ///
    /// - Throws: `SessionFileError` when no track has that part, or none of them is armed.
    public func restricted(toPart name: String) throws(SessionFileError) -> SessionDefinition {
        let parts = tracks.compactMap(\.part).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let chosen = tracks.filter { $0.part == name }
        guard !chosen.isEmpty else {
            let known = parts.isEmpty ? "no track has a part (part = \"stage\" in a [[track]])"
                : "the parts are " + parts.map { "'\($0)'" }.joined(separator: ", ")
            throw SessionFileError(path: sessionFilePath, message: "no track has part = \"\(name)\": \(known)")
        }
        guard chosen.contains(where: \.armed) else {
            throw SessionFileError(path: sessionFilePath, message: "part '\(name)': every track has arm = false (arm at least one)")
        }
        var narrowed = self
        narrowed.tracks = chosen
        narrowed.armedTracks = chosen.filter(\.armed)
        narrowed.takeFiles = SessionFileReader.takeFiles(narrowed.armedTracks, layout: layout)
        narrowed.part = name
        return narrowed
    }

    init(name: String, sessionFilePath: String, folder: String, sampleRate: Int?, settings: RecordingSettings,
         fileExtension: String, format: FileFormat, layout: SessionLayout, bufferSeconds: Double,
         tracks: [SessionTrack], takeFiles: [SessionTakeFile], locator: SessionFileLocator,
         alignsToCaptureLatency: Bool = false, scene: String? = nil, tape: String? = nil) {
        self.alignsToCaptureLatency = alignsToCaptureLatency
        self.scene = scene
        self.tape = tape
        self.name = name
        self.sessionFilePath = sessionFilePath
        self.folder = folder
        self.sampleRate = sampleRate
        self.settings = settings
        self.fileExtension = fileExtension
        self.format = format
        self.layout = layout
        self.bufferSeconds = bufferSeconds
        self.tracks = tracks
        self.armedTracks = tracks.filter(\.armed)
        self.takeFiles = takeFiles
        self.locator = locator
    }

    /// Reads and checks the session file at `path`. Reads only: nothing is created or touched.
    ///
    /// - Throws: `SessionFileError` naming the file, the line and the key of the first problem;
    ///   one that cannot be read (missing, a directory, not UTF-8 text) has no key.
    public static func load(path: String) throws(SessionFileError) -> SessionDefinition {
        let bytes = try readFile(path)
        let text = try decodeText(bytes, path: path)
        return try parse(text, path: path)
    }

    /// Checks a session file's text; `path` is where it came from, for `folder` and for messages.
    ///
    /// - Throws: `SessionFileError` naming the file, the line and the key of the first problem.
    public static func parse(_ text: String, path: String) throws(SessionFileError) -> SessionDefinition {
        try SessionFileReader(text: text, path: path).read()
    }

    /// An error located at a track's key, for checks made later against the server (a channel it
    /// lacks, a pattern no port matches): `sessions/band.toml:14: track 'Kick In': source: ...`.
    /// The line is the key's, or the track's header when the track does not set the key.
    ///
    /// - Parameter index: the track's index in `tracks`.
    package func error(track index: Int, key: String, _ message: String) -> SessionFileError {
        let name = tracks.indices.contains(index) ? tracks[index].name : nil
        var error = SessionFileReader.Errors(path: sessionFilePath, locator: locator).track(index, key, name: name, message)
        if error.line == nil, let name { error.line = tracks.first { $0.name == name }?.line }
        return error
    }

    /// `error(track:key:_:)` for a track of `tracks`, `armedTracks` or a take file, found by its
    /// name (track names are unique in a session).
    package func error(for track: SessionTrack, key: String, _ message: String) -> SessionFileError {
        error(track: tracks.firstIndex { $0.name == track.name } ?? tracks.count, key: key, message)
    }

    /// An error located at a `[session]` key, for checks made against the server (a sample rate
    /// mismatch): `sessions/band.toml:4: sample_rate: ...`. The line is the key's, or the
    /// `[session]` header's when the file does not set the key.
    package func error(sessionKey key: String, _ message: String) -> SessionFileError {
        SessionFileReader.Errors(path: sessionFilePath, locator: locator).session(key, message)
    }

    /// An error located at a `[remote]` key, for what only the remote can check (its token).
    package func error(remoteKey key: String, _ message: String) -> SessionFileError {
        SessionFileReader.Errors(path: sessionFilePath, locator: locator).remote(key, message)
    }

    /// The file name, without the folder, of take `number`'s file `file`: `take-007-Kick In.wav`
    /// for a track's file, `take-007-overheads.wav` for a group's, `take-007.wav` for the
    /// interleaved file. The number has at least three digits, as jcap's own take names, so the
    /// names sort in recording order; the name is made file-system safe ('/', NUL and control
    /// characters become '_', and so does a leading '.').
    public func fileName(take number: Int, file: SessionTakeFile) -> String {
        let label = file.label.map { "-" + SessionNaming.fileSystemSafe($0) } ?? ""
        return TakeNaming.prefix + SessionNaming.paddedNumber(number) + label + "." + fileExtension
    }

    /// `folder/fileName(take:file:)`.
    public func filePath(take number: Int, file: SessionTakeFile) -> String {
        (folder.hasSuffix("/") ? folder : folder + "/") + fileName(take: number, file: file)
    }

    /// The take number in a session take file's name: 7 for `take-007-Kick In.wav`,
    /// `take-007-overheads.flac` and `take-007.wav`; nil for any other name. A new take takes
    /// the number after the highest in the folder, whatever the file, so no number is reused,
    /// even after a take was deleted.
    package static func takeNumber(ofFileName fileName: String) -> Int? {
        guard fileName.hasPrefix(TakeNaming.prefix) else { return nil }
        let rest = fileName.utf8.dropFirst(TakeNaming.prefix.utf8.count)
        let digits = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !digits.isEmpty, digits.count <= 18,
              let next = rest.dropFirst(digits.count).first, next == UInt8(ascii: "-") || next == UInt8(ascii: ".")
        else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    // MARK: - Reading the file

    private static func readFile(_ path: String) throws(SessionFileError) -> [UInt8] {
        func failure(_ reason: String) -> SessionFileError {
            SessionFileError(path: path, message: "cannot read the session file: \(reason)")
        }
        // Non-blocking, so a FIFO or a device cannot hold the open (and jcap) forever; only a
        // regular file is read, so nothing can block the reads either.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure(String(cString: strerror(errno))) }
        if status.st_mode & S_IFMT == S_IFDIR { throw failure(String(cString: strerror(EISDIR))) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw failure("not a regular file (\(fileKind(status.st_mode)))")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(String(cString: strerror(errno)))
            }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= maximumFileBytes else {
                throw failure("larger than \(maximumFileBytes >> 20) MiB, so not a session file")
            }
        }
    }

    /// What a file that is not a regular file is, for the refusal.
    private static func fileKind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "not a file"
        }
    }

    /// The file as text: UTF-8, as TOML requires, with no NUL (TOMLKit reads the text as a C
    /// string, so everything after a NUL would silently vanish). A byte sequence that is not
    /// UTF-8 is named by its line.
    private static func decodeText(_ bytes: [UInt8], path: String) throws(SessionFileError) -> String {
        var line = 1
        for lineBytes in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if lineBytes.contains(0) {
                throw SessionFileError(path: path, line: line, message: "a NUL byte: a session file is text")
            }
            if String(validating: lineBytes, as: UTF8.self) == nil {
                throw SessionFileError(path: path, line: line, message: "not UTF-8 text (TOML files are UTF-8)")
            }
            line += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// How a take's tracks are laid out in files.
public enum SessionLayout: String, Sendable {
    /// One file per track, but tracks sharing a group share one file (the default): each part can
    /// be edited, replaced or left out on its own.
    case mono
    /// One file of every armed track, in track order, as a plain `jcap` take.
    case interleaved
}

/// One input of a session: where it comes from and what it is called.
public struct SessionTrack: Sendable, Equatable {
    /// `name`: unique in the session; the file name and the JACK port name come from it.
    public var name: String
    /// The JACK port short name: the track name, changed only where JACK forbids a character
    /// (':' becomes '-') and cut so "client:port" fits JACK's port name size with the session name.
    public var portName: String
    /// `source`: where the signal comes from.
    public var source: SessionTrackSource
    /// `group`: tracks sharing a group share one multichannel file, in track order.
    public var group: String?
    /// `arm`: whether the track is armed when the session opens (default true); every track gets
    /// a JACK port, only armed ones are recorded.
    public var armed: Bool
    /// The line of the track's `[[track]]` header.
    public var line: Int
    /// `part`: the share of a session split across recorder hosts this track belongs to
    /// (`jcap session FILE --part NAME` records only that part's tracks); nil: no part.
    public var part: String?
    /// `pan`: where the track sits in a monitor mix (`jcap play --mix`), -1 (left) ... 1
    /// (right); nil is the centre. For a group, its first track's pan is the group's balance.
    public var pan: Float?

    public init(name: String, portName: String, source: SessionTrackSource, group: String?, armed: Bool, line: Int) {
        self.name = name
        self.portName = portName
        self.source = source
        self.group = group
        self.armed = armed
        self.line = line
    }
}

/// Where a track's signal comes from.
public enum SessionTrackSource: Sendable, Hashable {
    /// A physical capture channel, 1-based, in the server's natural order (as `SourceSelection.channels`).
    case channel(Int)
    /// An output port's exact name or a glob (`*`, `?`, `[..]`), as `SourceSelection.ports`.
    case port(String)
}

/// One file of a take.
public struct SessionTakeFile: Sendable, Equatable {
    /// The track's name, the group's name, or nil for the interleaved file.
    public var label: String?
    /// Indices into `armedTracks` (in `SessionDefinition.takeFiles`) or into `tracks` (a
    /// session's take, whose channels are all the tracks), in track order: also the channel
    /// order in the file.
    public var trackIndices: [Int]

    public init(label: String?, trackIndices: [Int]) {
        self.label = label
        self.trackIndices = trackIndices
    }

    /// The file's channel count.
    public var channelCount: Int { trackIndices.count }
}
