import Foundation

/// One line of the take log as written: a take number and whichever fields the record sets.
///
/// Records are partial on purpose. A start record sets everything known at the start; an end
/// record everything known at the end; a note record only `note`, a mark record only `mark`; a
/// deletion only `status`. So a
/// record that knows nothing of a field never overwrites it, and a note written (by another
/// process, say) while the take was recording survives the take's end record.
///
/// Merging, a later record over what the earlier ones made (`merged(into:)`):
/// - a key the record has replaces the value, arrays whole (an end record's `files` and `tracks`
///   replace the start record's: the end knows the final frame counts and peaks);
/// - a key it lacks keeps the earlier value;
/// - `null` is the same as a missing key, except for `note` and `mark`, where `null` clears the
///   note (`TakeLog.setNote` with empty text writes it) or the mark (`TakeLog.setMark(take:nil)`).
/// The first record of a take must have a status; the others need not.
struct TakeLogRecord: Decodable, Equatable {
    var take: Int
    var status: TakeStatus?
    var startFrame: UInt32?
    var startTime: String?
    var transportFrame: UInt32?
    var bbt: String?
    var triggerPosition: Int64?
    var overdub: TakeLogOverdub?
    var part: String?
    var netjackLatencyCycles: Int?
    var masterStartFrame: UInt32?
    var sampleRate: Int?
    var frames: Int64?
    var files: [TakeLogFile]?
    var tracks: [TakeLogTrack]?
    var xruns: [TakeLogSpan]?
    var lost: [TakeLogSpan]?
    var late: [TakeLogSpan]?
    var uncertain: [TakeLogSpan]?
    var dropouts: [TakeLogSpan]?
    var masterJumps: [TakeLogSpan]?
    var clockSteps: [TakeLogSpan]?
    var pauses: [TakeLogPause]?
    var patching: [TakeLogPatch]?
    var lostEvents: Int?
    /// Every marker of the take (a marker record carries them all: arrays replace whole).
    var markers: [TakeLogMarker]?
    /// nil: the record does not touch the note; `.some(nil)`: it clears it.
    var note: String??
    /// nil: the record does not touch the mark; `.some(nil)`: it clears it.
    var mark: TakeMark??
    /// A status this jcap does not know (a newer jcap's), as written; `status` is nil then, so
    /// the record's other keys can still be read (`TakeLog.read()` reports the line).
    var unknownStatus: String?

    init(take: Int, status: TakeStatus? = nil, note: String?? = nil, mark: TakeMark?? = nil, markers: [TakeLogMarker]? = nil) {
        self.take = take
        self.status = status
        self.markers = markers
        self.note = note
        self.mark = mark
    }

    /// Every field of `entry`, as `TakeLog.append` writes it. Its nil optionals are left out, so
    /// they keep what earlier records said (an end record without a start frame keeps the start
    /// record's).
    init(_ entry: TakeLogEntry) {
        take = entry.take
        status = entry.status
        startFrame = entry.startFrame
        startTime = entry.startTime
        transportFrame = entry.transportFrame
        bbt = entry.bbt
        triggerPosition = entry.triggerPosition
        overdub = entry.overdub
        part = entry.part
        netjackLatencyCycles = entry.netjackLatencyCycles
        masterStartFrame = entry.masterStartFrame
        sampleRate = entry.sampleRate
        frames = entry.frames
        files = entry.files
        tracks = entry.tracks
        xruns = entry.xruns
        lost = entry.lost
        late = entry.late
        uncertain = entry.uncertain
        dropouts = entry.dropouts
        masterJumps = entry.masterJumps
        clockSteps = entry.clockSteps
        patching = entry.patching
        lostEvents = entry.lostEvents
        pauses = entry.pauses
        // None: the markers records written during the take stay (an end record knows none).
        markers = entry.markers.isEmpty ? nil : entry.markers
        note = entry.note.map { .some($0) }
        mark = entry.mark.map { .some($0) }
    }

    typealias CodingKeys = TakeLogEntry.CodingKeys

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        take = try container.decode(Int.self, forKey: .take)
        guard take >= 1 else {
            throw DecodingError.dataCorruptedError(forKey: .take, in: container, debugDescription: "take number \(take) is below 1")
        }
        if let written = try? container.decodeIfPresent(String.self, forKey: .status), TakeStatus(rawValue: written) == nil {
            unknownStatus = written
        } else {
            status = try container.decodeIfPresent(TakeStatus.self, forKey: .status)
        }
        startFrame = try container.decodeIfPresent(UInt32.self, forKey: .startFrame)
        startTime = try container.decodeIfPresent(String.self, forKey: .startTime)
        transportFrame = try container.decodeIfPresent(UInt32.self, forKey: .transportFrame)
        bbt = try container.decodeIfPresent(String.self, forKey: .bbt)
        triggerPosition = try container.decodeIfPresent(Int64.self, forKey: .triggerPosition)
        overdub = try container.decodeIfPresent(TakeLogOverdub.self, forKey: .overdub)
        part = try container.decodeIfPresent(String.self, forKey: .part)
        netjackLatencyCycles = try container.decodeIfPresent(Int.self, forKey: .netjackLatencyCycles)
        masterStartFrame = try container.decodeIfPresent(UInt32.self, forKey: .masterStartFrame)
        sampleRate = try container.decodeIfPresent(Int.self, forKey: .sampleRate)
        frames = try container.decodeIfPresent(Int64.self, forKey: .frames)
        files = try container.decodeIfPresent([TakeLogFile].self, forKey: .files)
        tracks = try container.decodeIfPresent([TakeLogTrack].self, forKey: .tracks)
        xruns = try container.decodeIfPresent([TakeLogSpan].self, forKey: .xruns)
        lost = try container.decodeIfPresent([TakeLogSpan].self, forKey: .lost)
        late = try container.decodeIfPresent([TakeLogSpan].self, forKey: .late)
        uncertain = try container.decodeIfPresent([TakeLogSpan].self, forKey: .uncertain)
        dropouts = try container.decodeIfPresent([TakeLogSpan].self, forKey: .dropouts)
        masterJumps = try container.decodeIfPresent([TakeLogSpan].self, forKey: .masterJumps)
        clockSteps = try container.decodeIfPresent([TakeLogSpan].self, forKey: .clockSteps)
        pauses = try container.decodeIfPresent([TakeLogPause].self, forKey: .pauses)
        patching = try container.decodeIfPresent([TakeLogPatch].self, forKey: .patching)
        lostEvents = try container.decodeIfPresent(Int.self, forKey: .lostEvents)
        markers = try container.decodeIfPresent([TakeLogMarker].self, forKey: .markers)
        if container.contains(.note) {
            note = .some(try container.decodeNil(forKey: .note) ? nil : try container.decode(String.self, forKey: .note))
        }
        if container.contains(.mark) {
            mark = .some(try container.decodeNil(forKey: .mark) ? nil : try container.decode(TakeMark.self, forKey: .mark))
        }
        let entry = merged(into: nil, status: status ?? .recording)
        if let reason = entry.invalidity() {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: reason))
        }
    }

    /// The record written as one JSON object on one line: the keys it sets, in the log's order
    /// (`OrderedJSON`).
    func encoded() -> [UInt8] {
        Array(orderedJSON.text.utf8)
    }

    /// `earlier` with this record's fields over it (the rules above); `status` stands in when
    /// neither has one (the caller checks that the first record of a take has one).
    func merged(into earlier: TakeLogEntry?, status fallback: TakeStatus) -> TakeLogEntry {
        var entry = earlier ?? TakeLogEntry(take: take, status: status ?? fallback, sampleRate: 0)
        if let status { entry.status = status }
        if let startFrame { entry.startFrame = startFrame }
        if let startTime { entry.startTime = startTime }
        if let transportFrame { entry.transportFrame = transportFrame }
        if let bbt { entry.bbt = bbt }
        if let triggerPosition { entry.triggerPosition = triggerPosition }
        if let overdub { entry.overdub = overdub }
        if let part { entry.part = part }
        if let netjackLatencyCycles { entry.netjackLatencyCycles = netjackLatencyCycles }
        if let masterStartFrame { entry.masterStartFrame = masterStartFrame }
        if let sampleRate { entry.sampleRate = sampleRate }
        if let frames { entry.frames = frames }
        if let files { entry.files = files }
        if let tracks { entry.tracks = tracks }
        if let xruns { entry.xruns = xruns }
        if let lost { entry.lost = lost }
        if let late { entry.late = late }
        if let uncertain { entry.uncertain = uncertain }
        if let dropouts { entry.dropouts = dropouts }
        if let masterJumps { entry.masterJumps = masterJumps }
        if let clockSteps { entry.clockSteps = clockSteps }
        if let pauses { entry.pauses = pauses }
        if let patching { entry.patching = patching }
        if let lostEvents { entry.lostEvents = lostEvents }
        if let markers { entry.markers = markers }
        if let note { entry.note = note }
        if let mark { entry.mark = mark }
        return entry
    }
}

/// Reading the log's lines.
enum TakeLogLines {
    /// True for a line that is the start of a record cut short: a `{` whose brackets never close
    /// (a write killed or cut off by a full disk leaves a prefix of the record, and a prefix of a
    /// JSON object always ends inside it), or nothing but NUL bytes (what some file systems leave
    /// of data not yet on disk at a power cut). A line that is complete JSON but not a record,
    /// or whose brackets close before junk, is not torn: it is damage to report.
    static func isTorn(_ line: ArraySlice<UInt8>) -> Bool {
        if line.allSatisfy({ $0 == 0 }) { return true }
        guard let first = line.firstIndex(where: { !isSpace($0) }), line[first] == UInt8(ascii: "{") else {
            return false
        }
        var depth = 0
        var inString = false
        var escaped = false
        for byte in line[first...] {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth <= 0 { return false }
            default: break
            }
        }
        return true
    }

    /// The take number a line starts with (`{"take":12,...`), read without parsing the rest: how
    /// a torn or damaged line still counts towards the numbering.
    static func leadingTakeNumber(_ line: ArraySlice<UInt8>) -> Int? {
        var rest = line.drop(while: isSpace)
        for expected in Array("{\"take\":".utf8) {
            rest = rest.drop(while: isSpace)
            guard rest.first == expected else { return nil }
            rest = rest.dropFirst()
        }
        let digits = rest.drop(while: isSpace).prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !digits.isEmpty, digits.count < 19 else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }

    /// One line for a decoding error: where in the record, and what.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }
            var text = ""
            for key in keys { text += key.hasPrefix("[") || text.isEmpty ? key : "." + key }
            return text
        }
        switch error {
        case .keyNotFound(let key, let context):
            let inside = path(context)
            return "no \"\(key.stringValue)\"" + (inside.isEmpty ? "" : " in \(inside)")
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            if context.codingPath.isEmpty { return "not a JSON object" }
            return "\(path(context)) is not \(typeName(type))"
        case .dataCorrupted(let context):
            let inside = path(context)
            if context.codingPath.isEmpty, context.debugDescription.contains("not valid JSON") {
                // Foundation says the same of a number too large for its field.
                return "not valid JSON, or a number out of range"
            }
            if context.codingPath.last?.stringValue == TakeLogEntry.CodingKeys.status.rawValue {
                return "unknown status (use \(TakeStatus.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")))"
            }
            if context.codingPath.last?.stringValue == TakeLogEntry.CodingKeys.mark.rawValue {
                return "unknown mark (use \(TakeMark.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), or null)"
            }
            return (inside.isEmpty ? "" : "\(inside): ") + context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type, is UInt32.Type: "a whole number in range"
        case is Double.Type: "a number"
        default: "the expected kind of value"
        }
    }
}
