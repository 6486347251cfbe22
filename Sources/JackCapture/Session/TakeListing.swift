import Foundation

/// What `jcap takes` prints: one line a take, or the log's entries as one JSON document.
///
/// Newest last, as the log is written, so the take just recorded is the line nearest the prompt.
/// A line reads left to right as a person scans it: number, when (local time: the log's UTC is
/// for machines), how long (h:mm:ss.mmm; with `showsFrames`, `jcap takes -v`, also the exact
/// frames, which is what an editor's timeline and every position in the log count), the engineer's mark (circled, false start, no good),
/// tracks, the loudest peak, then anything that went wrong and the note. Deleted and discarded takes stay listed, marked, so a gap in the numbers
/// always has an explanation.
public enum TakeListing {
    /// At most this many track names are spelled out; more are counted.
    static let namedTracks = 4

    /// One line a take, in the order given (`TakeLog.entries()` is oldest first). A take whose
    /// sample rate is unknown (0) is timed at `defaultSampleRate` if given, else shown in frames
    /// only (as if `showsFrames`).
    public static func lines(_ entries: [TakeLogEntry], defaultSampleRate: Int? = nil,
                             timeZone: TimeZone = .current, showsFrames: Bool = false) -> [String] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let numberWidth = entries.map { String($0.take).count }.max() ?? 1
        let rows = entries.map { entry -> [String] in
            let rate = entry.sampleRate > 0 ? entry.sampleRate : (defaultSampleRate ?? 0)
            let start = entry.startTime.flatMap(TakeLogTime.date(from:)).map(formatter.string(from:))
                ?? entry.startTime ?? "-"
            return [String(repeating: " ", count: numberWidth - String(entry.take).count) + String(entry.take),
                    start,
                    duration(frames: entry.frames, sampleRate: rate),
                    showsFrames || rate <= 0 ? "\(entry.frames) frames" : "",
                    entry.mark.map(markText) ?? "",
                    tracks(entry),
                    peak(entry),
                    problems(entry),
                    markers(entry),
                    entry.note.map { "\"\(oneLine($0))\"" } ?? ""]
        }
        // The first four columns aligned (the text ones vary too much to pad usefully).
        var widths = [Int](repeating: 0, count: 4)
        for row in rows { for column in 0..<4 { widths[column] = max(widths[column], row[column].count) } }
        return rows.map { row in
            var parts: [String] = []
            for (column, text) in row.enumerated() {
                if column < 4 && widths[column] == 0 {
                    continue
                } else if column < 4 {
                    let pad = String(repeating: " ", count: widths[column] - text.count)
                    parts.append(column == 2 || column == 3 ? pad + text : text + pad)
                } else if !text.isEmpty {
                    parts.append(text)
                }
            }
            var line = parts.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }

    /// The entries as a JSON array, one entry a line, each exactly as the log spells a full record
    /// (the same keys in the same order): a script reads the JSON listing and the log with one
    /// parser, and `[TakeLogEntry]` decodes it.
    public static func json(_ entries: [TakeLogEntry]) -> String {
        let objects = entries.map(\.orderedJSON.text)
        guard !objects.isEmpty else { return "[]" }
        return "[\n" + objects.map { "  " + $0 }.joined(separator: ",\n") + "\n]"
    }

    /// `h:mm:ss.mmm`, rounded down to the millisecond (a length is never overstated); `-` when
    /// the rate is unknown.
    static func duration(frames: Int64, sampleRate: Int) -> String {
        guard sampleRate > 0, frames >= 0 else { return "-" }
        let rate = Int64(sampleRate)
        let seconds = frames / rate
        // Exact for every real rate; a rate from a damaged log too large to multiply is scaled in
        // floating point instead of trapping.
        let remainder = frames % rate
        let milliseconds = remainder <= Int64.max / 1_000
            ? remainder * 1_000 / rate
            : min(999, Int64(Double(remainder) / Double(rate) * 1_000))
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(seconds / 3_600):\(two(seconds / 60 % 60)):\(two(seconds % 60)).\(millis)"
    }

    /// A mark as a listing says it: `circled`, `false start`, `no good`.
    public static func markText(_ mark: TakeMark) -> String {
        switch mark {
        case .circled: "circled"
        case .falseStart: "false start"
        case .noGood: "no good"
        }
    }

    static func tracks(_ entry: TakeLogEntry) -> String {
        let count = entry.tracks.count
        guard count > 0 else { return "" }
        let noun = count == 1 ? "1 track" : "\(count) tracks"
        let names = entry.tracks.map(\.name)
        guard count <= namedTracks, names.allSatisfy({ !$0.isEmpty }) else { return noun }
        return noun + ": " + names.map(oneLine).joined(separator: ", ")
    }

    /// The loudest track's peak, and how many samples clipped over all tracks (`18 clipped`).
    static func peak(_ entry: TakeLogEntry) -> String {
        guard let highest = entry.tracks.compactMap(\.highestPeakDBFS).filter({ !$0.isNaN }).max() else { return "" }
        // Signed as a meter shows it, silence as -inf (as everywhere jcap shows a level).
        let level = "peak \(DecibelText.text(highest).trimmingCharacters(in: .whitespaces)) dBFS"
        let clipped = saturatingSum(entry.tracks.compactMap(\.clippedSamples).filter { $0 > 0 })
        return clipped > 0 ? "\(level), \(clipped) clipped" : level
    }

    /// The take's markers, each at its time from the take's start.
    static func markers(_ entry: TakeLogEntry) -> String {
        guard !entry.markers.isEmpty else { return "" }
        let times = entry.markers.map { $0.time ?? duration(frames: $0.position, sampleRate: entry.sampleRate) }
        return (entry.markers.count == 1 ? "marker " : "\(entry.markers.count) markers ") + times.joined(separator: ", ")
    }

    /// The status when it is not `complete`, and every loss and xrun, whatever the status.
    static func problems(_ entry: TakeLogEntry) -> String {
        var parts: [String] = []
        switch entry.status {
        case .complete: break
        case .framesLost: if entry.lost.isEmpty && entry.dropouts.isEmpty && entry.masterJumps.isEmpty { parts.append("frames lost") }
        case .placementUncertain: if entry.uncertain.isEmpty { parts.append("placement uncertain") }
        case .recording: parts.append("recording (or killed: not yet recovered)")
        case .interrupted: parts.append("interrupted")
        case .serverShutdown: parts.append("server shut down")
        case .diskFull: parts.append("disk full")
        case .writeFailed: parts.append("write failed")
        case .discarded: parts.append("discarded")
        case .deleted: parts.append("deleted")
        }
        if !entry.lost.isEmpty {
            let frames = saturatingSum(entry.lost.map(\.frames))
            parts.append("\(frames) frames lost in \(entry.lost.count) span\(entry.lost.count == 1 ? "" : "s")")
        }
        if !entry.uncertain.isEmpty {
            let frames = saturatingSum(entry.uncertain.map(\.frames))
            parts.append("\(frames) frames of uncertain placement in \(entry.uncertain.count) span\(entry.uncertain.count == 1 ? "" : "s")")
        }
        if !entry.dropouts.isEmpty {
            let frames = saturatingSum(entry.dropouts.map(\.frames))
            parts.append("NetJACK2 link dropout\(entry.dropouts.count == 1 ? "" : "s"): about \(frames) frames from the master missing")
        }
        if !entry.masterJumps.isEmpty {
            let jumps = entry.masterJumps.map { ($0.frames > 0 ? "+" : "") + "\($0.frames)" }.joined(separator: ", ")
            parts.append("master clock jump\(entry.masterJumps.count == 1 ? "" : "s"): \(jumps) frames")
        }
        if !entry.clockSteps.isEmpty {
            let steps = entry.clockSteps.map { ($0.frames > 0 ? "+" : "") + "\($0.frames)" }.joined(separator: ", ")
            parts.append("JACK clock step\(entry.clockSteps.count == 1 ? "" : "s") at a period change: \(steps) frames, none missing")
        }
        if !entry.late.isEmpty {
            parts.append("\(entry.late.count) late cop\(entry.late.count == 1 ? "y" : "ies")")
        }
        if !entry.xruns.isEmpty {
            parts.append("\(entry.xruns.count) xrun\(entry.xruns.count == 1 ? "" : "s")")
        }
        if !entry.pauses.isEmpty {
            parts.append("paused \(entry.pauses.count)x")
        }
        for patch in entry.patching {
            let time = duration(frames: patch.position, sampleRate: entry.sampleRate)
            parts.append("\(oneLine(patch.track)): \(oneLine(patch.source)) \(patch.connected ? "connected" : "disconnected") "
                + "\(patch.exact ? "at" : "near") \(time)")
        }
        if entry.lostEvents > 0 {
            parts.append("\(entry.lostEvents) event\(entry.lostEvents == 1 ? "" : "s") lost (a ring was full): connections, xruns or spans may be missing here")
        }
        if let overdub = entry.overdub { parts.append("overdub of take \(overdub.take)") }
        let dead = deadTracks(entry)
        if !dead.isEmpty {
            parts.append((dead.count == 1 ? "dead track: " : "\(dead.count) dead tracks: ") + dead.map(oneLine).joined(separator: ", "))
        }
        return parts.joined(separator: ", ")
    }

    /// The tracks that peaked below `DeadTrack.level` in a take where another track did not:
    /// unpatched or silent, recorded as nothing.
    public static func deadTracks(_ entry: TakeLogEntry) -> [String] {
        let level = Double(DeadTrack.level)
        let peaks = entry.tracks.map { $0.highestPeakDBFS.flatMap { $0.isNaN ? nil : $0 } }
        guard peaks.contains(where: { ($0 ?? -.infinity) >= level }) else { return [] }
        return zip(entry.tracks, peaks).filter { ($0.1 ?? 0) < level }.map(\.0.name)
    }

    /// Text on one line: a note may hold newlines, a listing line may not.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    static func saturatingSum(_ values: [Int64]) -> Int64 {
        values.reduce(0) { sum, value in
            let (result, overflow) = sum.addingReportingOverflow(value)
            return overflow ? Int64.max : result
        }
    }
}
