import Foundation

/// Writes a `SessionDefinition` as a session file (TOML, the keys of `sessions/README.md`) that
/// `SessionDefinition.load(path:)` reads back as the same session: its name, folder, format keys,
/// buffer, layout, labels, every track with its source, group, pan and arm state, and the browser
/// remote's `[remote]`. A session
/// manager saves a session this way (`jcap` under NSM), with the arm states of the moment.
///
/// Only what the definition sets is written: a format key the file left out stays out (its
/// default is the reader's), so the file reads as one written by hand.
public enum SessionFileWriter {
    /// The file's text for `definition`, to be written at `path`: the folder is written relative
    /// to `path`'s directory when it lies inside it (so the folder moves with the file, as a
    /// session manager's copy of a session does), else as it is. `armed` (one per track, in
    /// track order) overrides the tracks' `armed`: the arm states of an open session.
    public static func text(of definition: SessionDefinition, armed: [Bool]? = nil, path: String) -> String {
        var lines = ["[session]"]
        lines.append("name = \(quoted(definition.name))")
        lines.append("folder = \(quoted(relativeFolder(definition.folder, filePath: path)))")
        if let rate = definition.sampleRate { lines.append("sample_rate = \(rate)") }
        lines.append("format = \(quoted(definition.fileExtension))")
        let settings = definition.settings
        if let encoding = settings.format { lines.append("encoding = \(quoted(encoding.rawValue))") }
        if let bits = settings.bitDepth { lines.append("bit_depth = \(bits)") }
        if let order = settings.endianness { lines.append("endian = \(quoted(order.rawValue))") }
        if let quality = settings.quality { lines.append("quality = \(number(quality))") }
        if let level = settings.compressionLevel { lines.append("compression_level = \(level)") }
        if settings.diskIO != .auto { lines.append("io = \(quoted(settings.diskIO.rawValue))") }
        lines.append("buffer = \(quoted(buffer(definition.bufferSeconds, sampleRate: definition.sampleRate)))")
        lines.append("layout = \(quoted(definition.layout.rawValue))")
        if definition.alignsToCaptureLatency { lines.append("align_latency = true") }
        if let scene = definition.scene { lines.append("scene = \(quoted(scene))") }
        if let tape = definition.tape { lines.append("tape = \(quoted(tape))") }

        for (index, track) in definition.tracks.enumerated() {
            lines.append("")
            lines.append("[[track]]")
            lines.append("name = \(quoted(track.name))")
            switch track.source {
            case .channel(let channel): lines.append("source = \(channel)")
            case .port(let port): lines.append("source = \(quoted(port))")
            }
            if let group = track.group { lines.append("group = \(quoted(group))") }
            if let pan = track.pan { lines.append("pan = \(number(Double(pan), shortest: "\(pan)"))") }
            let isArmed = armed.flatMap { $0.indices.contains(index) ? $0[index] : nil } ?? track.armed
            lines.append("arm = \(isArmed)")
        }
        if let remote = definition.remote {
            lines.append("")
            lines.append("[remote]")
            if let address = remote.address { lines.append("address = \(quoted(address))") }
            lines.append("port = \(remote.port)")
            if let token = remote.token { lines.append("token = \(quoted(token))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes `text(of:armed:path:)` to `path`, atomically (a temporary file renamed over it), so
    /// a crash mid-save leaves the old file whole.
    ///
    /// - Throws: `SessionFileError` naming the file and why it could not be written.
    public static func write(_ definition: SessionDefinition, armed: [Bool]? = nil, to path: String) throws(SessionFileError) {
        do {
            try text(of: definition, armed: armed, path: path).write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw SessionFileError(path: path, message: "cannot write the session file: \(error.localizedDescription)")
        }
    }

    /// `folder` relative to the directory of `filePath` when inside it ("." for the directory
    /// itself), else unchanged.
    static func relativeFolder(_ folder: String, filePath: String) -> String {
        guard let slash = filePath.lastIndex(of: "/") else { return folder }
        let directory = String(filePath[..<slash])
        var trimmed = folder
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        if trimmed.hasSuffix("/.") { trimmed.removeLast(2) }
        if trimmed == directory { return "." }
        if trimmed.hasPrefix(directory + "/") { return String(trimmed.dropFirst(directory.count + 1)) }
        return folder
    }

    /// A buffer length the reader turns into the same seconds: whole frames at the session's
    /// rate when it is one (`buffer = "96000f"` gives back exactly frames / rate), else seconds.
    static func buffer(_ seconds: Double, sampleRate: Int?) -> String {
        if let sampleRate, sampleRate > 0 {
            let frames = (seconds * Double(sampleRate)).rounded()
            if frames / Double(sampleRate) == seconds, seconds != seconds.rounded() { return "\(Int(frames))f" }
        }
        if seconds == seconds.rounded(), seconds < 1e15 { return "\(Int(seconds))s" }
        return "\(seconds)s"
    }

    /// A TOML float: Swift's shortest round-trip spelling, which TOML reads as written.
    private static func number(_ value: Double, shortest: String? = nil) -> String {
        let text = shortest ?? "\(value)"
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }

    /// A TOML basic string: quotes, backslashes and control characters escaped.
    package static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
