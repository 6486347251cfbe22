import Foundation

/// Puts a take's mark and note, as the log has them now, into its files' iXML (TAKE_TYPE,
/// CIRCLED, NOTE) and bext description, and its markers into their cue list (`cue ` and labels,
/// `RIFFMetadataRewriter.setCues`), when they change after the take: the files then say what the
/// log says. Only WAV and RF64 files carry them (`SoundFile.apply`); other files, and a take
/// still recording (libsndfile rewrites the header when it closes the files; the take's end
/// applies the marks instead), are left alone.
package enum TakeFileMarking {
    /// Rewrites every file of `entry` that exists and carries an iXML chunk.
    ///
    /// - Returns: a one-line problem for each file that could not be rewritten (its audio is
    ///   untouched); empty when every file says the mark and note now.
    @discardableResult
    package static func apply(_ entry: TakeLogEntry, sessionName: String, folder: String) -> [String] {
        guard entry.status != .recording, !entry.status.isRemoved else { return [] }
        var problems: [String] = []
        for file in entry.files {
            let path = folder + "/" + file.path
            guard FileManager.default.fileExists(atPath: path) else { continue }
            do {
                try apply(entry, file: file, path: path, sessionName: sessionName)
            } catch {
                problems.append(error.description)
            }
        }
        return problems
    }

    private static func apply(_ entry: TakeLogEntry, file: TakeLogFile, path: String, sessionName: String) throws(CaptureError) {
        guard let chunks = try? RIFFMetadataRewriter.chunks(of: path).chunks else { return }
        if chunks.contains(where: { $0.id == "iXML" }) { try applyMarks(entry, file: file, path: path, sessionName: sessionName) }
        if !entry.markers.isEmpty || chunks.contains(where: { $0.id == "cue " }) {
            try RIFFMetadataRewriter.setCues(path: path, cues(entry.markers, frames: file.frames ?? entry.frames))
        }
    }

    /// The markers inside a file of `frames` frames as cues labelled "marker N" and their time, in
    /// the order they were dropped.
    static func cues(_ markers: [TakeLogMarker], frames: Int64) -> [RIFFMetadataRewriter.Cue] {
        markers.enumerated().compactMap { index, marker in
            guard marker.position >= 0, marker.position <= frames, let frame = UInt32(exactly: marker.position) else { return nil }
            let label = "marker \(index + 1)" + (marker.time.map { " \($0)" } ?? "")
            return RIFFMetadataRewriter.Cue(frame: frame, label: label)
        }
    }

    private static func applyMarks(_ entry: TakeLogEntry, file: TakeLogFile, path: String, sessionName: String) throws(CaptureError) {
        // Read, and closed again, before the file is written.
        let (chunk, sampleRate) = try { () throws(CaptureError) in
            let reader = try SoundFile.open(readingFrom: path)
            return (try reader.chunk(id: "iXML"), reader.sampleRate)
        }()
        guard let chunk else { return }
        let document = String(decoding: chunk, as: UTF8.self)
        // Scene and tape as the file was made with them: the session file may have moved on.
        var metadata = TakeFileMetadata(
            sessionName: sessionName, scene: element("SCENE", in: document), tape: element("TAPE", in: document),
            takeNumber: entry.take,
            tracks: file.tracks.enumerated().map { TakeFileMetadata.Track(name: $1, channel: $0 + 1) },
            note: entry.note, mark: entry.mark,
            originationMicrosecondsSinceEpoch: 0, sampleRate: sampleRate, startMicrosecondsSinceEpoch: 0)
        if let project = element("PROJECT", in: document) { metadata.sessionName = project }
        try RIFFMetadataRewriter.rewrite(path: path, description: metadata.broadcastDescription,
                                         iXML: remarked(document, with: metadata.markingElements))
    }

    /// `document` with its marking elements (TAKE_TYPE, CIRCLED, NOTE) replaced by `elements`,
    /// put after TAKE; the padding after the root element dropped.
    static func remarked(_ document: String, with elements: [String]) -> String {
        var text = document.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0")))
        for name in TakeFileMetadata.markingElementNames {
            // jcap's own lines: the content is escaped, so the closing tag cannot occur inside it.
            while let range = text.range(of: "\n[ \t]*<\(name)>[\\s\\S]*?</\(name)>", options: .regularExpression) {
                text.removeSubrange(range)
            }
        }
        let insertion = "\n" + elements.joined(separator: "\n")
        if let take = text.range(of: "</TAKE>") {
            text.insert(contentsOf: insertion, at: take.upperBound)
        } else if let end = text.range(of: "</BWFXML>", options: .backwards) {
            text.insert(contentsOf: insertion.dropFirst() + "\n", at: end.lowerBound)
        }
        return text + "\n"
    }

    /// The unescaped text of the first `<name>` element, or nil.
    static func element(_ name: String, in document: String) -> String? {
        guard let range = document.range(of: "<\(name)>[\\s\\S]*?</\(name)>", options: .regularExpression) else { return nil }
        let inner = document[range].dropFirst(name.count + 2).dropLast(name.count + 3)
        return String(inner)
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
