import JackCapture

/// `--meter json`: one JSON object per line per update, for other programs.
///
/// `{"buffer_fill":0.01,"channels":[{"average_db":-15.2,"clip":false,"clip_count":0,
/// "highest_peak_db":-9.8,"name":"out_1","peak_db":-12.3,"peak_hold_db":-10.1}],
/// "disk_seconds_left":null,"elapsed_frames":48000,"lost_frames":0,"session":null,
/// "state":"recording","take":null,"xruns":0}`
///
/// `session`, `take` and `disk_seconds_left` are on every line, null when there is none (a plain
/// recording) or it is unknown. After each take the stream has a `TakeSummaryJSON` line.
struct MeterJSONLine: Encodable {
    struct Channel: Encodable {
        let name: String
        let peak_db: Double
        let average_db: Double
        let peak_hold_db: Double
        let highest_peak_db: Double
        let clip: Bool
        let clip_count: Int64
    }

    let state: String
    let session: String?
    let take: Int?
    let disk_seconds_left: Double?
    let elapsed_frames: Int64
    let remaining_frames: Int64?
    let countdown_frames: Int64?
    let channels: [Channel]
    let buffer_fill: Double
    let xruns: Int64
    let lost_frames: Int64

    init(_ snapshot: MeterSnapshot) {
        switch snapshot.state {
        case .ready: state = "ready"; countdown_frames = nil
        case .waitingForPorts: state = "waiting_for_ports"; countdown_frames = nil
        case .countdown(let frames): state = "countdown"; countdown_frames = frames
        case .recording: state = "recording"; countdown_frames = nil
        case .playing: state = "playing"; countdown_frames = nil
        case .paused: state = "paused"; countdown_frames = nil
        case .finished: state = "finished"; countdown_frames = nil
        }
        session = snapshot.sessionName
        take = snapshot.takeNumber
        disk_seconds_left = snapshot.diskSecondsLeft.map { ($0.isFinite ? min($0, 1e12) : 1e12).rounded() }
        elapsed_frames = snapshot.elapsedFrames
        remaining_frames = snapshot.remainingFrames
        channels = snapshot.channels.map {
            Channel(name: $0.name, peak_db: Self.round($0.reading.peakPower),
                    average_db: Self.round($0.reading.averagePower), peak_hold_db: Self.round($0.reading.peakHold),
                    highest_peak_db: Self.round($0.reading.highestPeak), clip: $0.reading.isClipped,
                    clip_count: $0.reading.clipCount)
        }
        buffer_fill = (snapshot.bufferFill * 10_000).rounded() / 10_000
        xruns = snapshot.xruns
        lost_frames = snapshot.lostFrames
    }

    enum CodingKeys: String, CodingKey {
        case state, session, take, disk_seconds_left, elapsed_frames, remaining_frames, countdown_frames, channels
        case buffer_fill, xruns, lost_frames
    }

    /// As synthesized, except that `session`, `take` and `disk_seconds_left` are written as null
    /// rather than left out: every line carries them.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(session, forKey: .session)
        try container.encode(take, forKey: .take)
        try container.encode(disk_seconds_left, forKey: .disk_seconds_left)
        try container.encode(elapsed_frames, forKey: .elapsed_frames)
        try container.encodeIfPresent(remaining_frames, forKey: .remaining_frames)
        try container.encodeIfPresent(countdown_frames, forKey: .countdown_frames)
        try container.encode(channels, forKey: .channels)
        try container.encode(buffer_fill, forKey: .buffer_fill)
        try container.encode(xruns, forKey: .xruns)
        try container.encode(lost_frames, forKey: .lost_frames)
    }

    static func round(_ decibels: Float) -> Double { (Double(decibels) * 100).rounded() / 100 }

    /// The line `encode(to:)` describes, as JSONEncoder writes it with sorted keys and slashes
    /// unescaped, byte for byte (a test holds the two equal), but written directly: at ten lines a
    /// second, JSONEncoder took a sixth of a 1024-channel recording's CPU (BENCHMARKS.md).
    func encoded() -> String {
        var line = ""
        line.reserveCapacity(256 + channels.count * 144)
        line += "{\"buffer_fill\":"
        Self.write(buffer_fill, to: &line)
        line += ",\"channels\":["
        for (index, channel) in channels.enumerated() {
            line += index == 0 ? "{\"average_db\":" : ",{\"average_db\":"
            Self.write(channel.average_db, to: &line)
            line += channel.clip ? ",\"clip\":true,\"clip_count\":" : ",\"clip\":false,\"clip_count\":"
            line += String(channel.clip_count)
            line += ",\"highest_peak_db\":"
            Self.write(channel.highest_peak_db, to: &line)
            line += ",\"name\":"
            Self.write(channel.name, to: &line)
            line += ",\"peak_db\":"
            Self.write(channel.peak_db, to: &line)
            line += ",\"peak_hold_db\":"
            Self.write(channel.peak_hold_db, to: &line)
            line += "}"
        }
        line += "]"
        if let countdown_frames { line += ",\"countdown_frames\":" + String(countdown_frames) }
        line += ",\"disk_seconds_left\":"
        if let disk_seconds_left { Self.write(disk_seconds_left, to: &line) } else { line += "null" }
        line += ",\"elapsed_frames\":" + String(elapsed_frames)
        line += ",\"lost_frames\":" + String(lost_frames)
        if let remaining_frames { line += ",\"remaining_frames\":" + String(remaining_frames) }
        line += ",\"session\":"
        if let session { Self.write(session, to: &line) } else { line += "null" }
        line += ",\"state\":"
        Self.write(state, to: &line)
        line += ",\"take\":" + (take.map { String($0) } ?? "null")
        line += ",\"xruns\":" + String(xruns) + "}"
        return line
    }

    /// A number as JSONEncoder writes it: Swift's shortest text, a whole number without ".0". The
    /// meters are floored at -160 dB, so no value is infinite or NaN; were one, it is null.
    static func write(_ value: Double, to line: inout String) {
        guard value.isFinite else { return line += "null" }
        let text = value.description
        line += text.hasSuffix(".0") ? text.dropLast(2) : Substring(text)
    }

    /// A string as JSONEncoder writes it: quotes, backslashes and control characters escaped.
    static func write(_ text: String, to line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\u{8}": line += "\\b"
            case "\u{C}": line += "\\f"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }
}
