import CSndfile
import Foundation

/// What a take's file says about itself, so that a DAW or an archive knows which session, take and
/// tracks it holds and where on the day's timeline its first sample belongs.
package struct TakeFileMetadata: Equatable, Sendable {
    /// A named channel of the file.
    package struct Track: Equatable, Sendable {
        package var name: String
        /// The channel in the file, from 1 (iXML's CHANNEL_INDEX and jcap's channel numbers count
        /// from 1).
        package var channel: Int

        package init(name: String, channel: Int) {
            self.name = name
            self.channel = channel
        }
    }

    package var sessionName: String
    /// The session file's `scene` and `tape`, as a film sound recorder's iXML SCENE and TAPE.
    package var scene: String?
    package var tape: String?
    package var takeNumber: Int
    package var tracks: [Track]
    /// Free text about the take, added to the bext description and written as iXML's NOTE.
    package var note: String?
    /// How the take is marked: iXML's CIRCLED and TAKE_TYPE, and a word in the bext description.
    package var mark: TakeMark?
    /// When the file was made, in microseconds since 1970-01-01 00:00 UTC.
    package var originationMicrosecondsSinceEpoch: Int64
    /// The file's sample rate: the time reference counts samples at this rate.
    package var sampleRate: Int
    /// When the file's first sample was captured, in microseconds since 1970-01-01 00:00 UTC.
    package var startMicrosecondsSinceEpoch: Int64
    /// The zone whose local time the date, time and time reference are in.
    package var timeZone: TimeZone

    package init(sessionName: String, scene: String? = nil, tape: String? = nil, takeNumber: Int, tracks: [Track] = [],
                note: String? = nil, mark: TakeMark? = nil,
                originationMicrosecondsSinceEpoch: Int64, sampleRate: Int, startMicrosecondsSinceEpoch: Int64,
                timeZone: TimeZone = .current) {
        self.sessionName = sessionName
        self.scene = scene
        self.tape = tape
        self.takeNumber = takeNumber
        self.tracks = tracks
        self.note = note
        self.mark = mark
        self.originationMicrosecondsSinceEpoch = originationMicrosecondsSinceEpoch
        self.sampleRate = sampleRate
        self.startMicrosecondsSinceEpoch = startMicrosecondsSinceEpoch
        self.timeZone = timeZone
    }

    /// A moment as samples since the local midnight before it: BWF's TimeReference, which DAWs
    /// read as the time of day to place a file at on their timeline.
    ///
    /// On a day the clocks change, this is the local clock's time of day, not the time elapsed
    /// since midnight: a take that starts at 12:00 on the day clocks go forward is placed at 12:00
    /// although 11 hours have passed, and both 02:30s of the day they go back are 02:30. Rounded
    /// down to a whole sample; 0 for a sample rate that is not positive.
    package static func samplesSinceLocalMidnight(microsecondsSinceEpoch: Int64, sampleRate: Int,
                                                 timeZone: TimeZone) -> UInt64 {
        guard sampleRate > 0 else { return 0 }
        let microsecondsPerDay: Int64 = 86_400_000_000
        let instant = Date(timeIntervalSince1970: (Double(microsecondsSinceEpoch) / 1_000_000).rounded(.down))
        // Zones are less than a day from UTC; clamped so that no zone data can overflow below.
        let offset = Int64(timeZone.secondsFromGMT(for: instant)).clamped(to: -86_399...86_399) * 1_000_000
        // The time of day in UTC, then moved to local time; each step stays within a day.
        let utcTimeOfDay = positiveRemainder(microsecondsSinceEpoch, microsecondsPerDay)
        let localTimeOfDay = positiveRemainder(utcTimeOfDay + offset, microsecondsPerDay)
        let product = UInt64(localTimeOfDay).multipliedFullWidth(by: UInt64(sampleRate))
        guard product.high < 1_000_000 else { return UInt64.max }
        return UInt64(1_000_000).dividingFullWidth(product).quotient
    }

    /// The local date `yyyy-mm-dd` and time `hh:mm:ss` of a moment, as bext wants them.
    static func localDateAndTime(microsecondsSinceEpoch: Int64, timeZone: TimeZone) -> (date: String, time: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let instant = Date(timeIntervalSince1970: (Double(microsecondsSinceEpoch) / 1_000_000).rounded(.down))
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant)
        func digits(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return ("\(digits(parts.year, 4))-\(digits(parts.month, 2))-\(digits(parts.day, 2))",
                "\(digits(parts.hour, 2)):\(digits(parts.minute, 2)):\(digits(parts.second, 2))")
    }

    private static func positiveRemainder(_ value: Int64, _ modulus: Int64) -> Int64 {
        let remainder = value % modulus
        return remainder < 0 ? remainder + modulus : remainder
    }

    /// The first sample's TimeReference in this metadata's zone and rate.
    package var timeReference: UInt64 {
        TakeFileMetadata.samplesSinceLocalMidnight(microsecondsSinceEpoch: startMicrosecondsSinceEpoch,
                                                   sampleRate: sampleRate, timeZone: timeZone)
    }

    /// The bext description: `session: Live; scene: 12A; take: 3; tracks: 1 Kick, 2 Snare;
    /// circled; <note>` (scene, mark and note only when there are).
    package var broadcastDescription: String {
        var parts = ["session: \(sessionName)"]
        if let scene, !scene.isEmpty { parts.append("scene: \(scene)") }
        parts.append("take: \(takeNumber)")
        if !tracks.isEmpty { parts.append("tracks: " + tracks.map { "\($0.channel) \($0.name)" }.joined(separator: ", ")) }
        if let mark { parts.append(TakeFileMetadata.markWords(mark)) }
        if let note, !note.isEmpty { parts.append(note) }
        return parts.joined(separator: "; ")
    }

    /// A mark as the description says it.
    static func markWords(_ mark: TakeMark) -> String {
        switch mark {
        case .circled: "circled"
        case .falseStart: "false start"
        case .noGood: "no good"
        }
    }

    /// iXML's TAKE_TYPE for a mark: FALSE_START and NO_GOOD are iXML's own words; a circled or
    /// unmarked take is a DEFAULT take (circling is CIRCLED).
    static func takeType(_ mark: TakeMark?) -> String {
        switch mark {
        case .falseStart: "FALSE_START"
        case .noGood: "NO_GOOD"
        case .circled, nil: "DEFAULT"
        }
    }

    /// The iXML elements a mark or a note changes, one a line as `iXML` writes them: TAKE_TYPE,
    /// CIRCLED and, when there is a note, NOTE. `TakeFileMarking` replaces them in a take's files
    /// when the mark or note changes after the take.
    package var markingElements: [String] {
        var lines = [
            "  <TAKE_TYPE>\(TakeFileMetadata.takeType(mark))</TAKE_TYPE>",
            "  <CIRCLED>\(mark == .circled ? "TRUE" : "FALSE")</CIRCLED>",
        ]
        if let note, !note.isEmpty { lines.append("  <NOTE>\(TakeFileMetadata.xmlEscaped(note))</NOTE>") }
        return lines
    }

    /// The names of `markingElements`.
    package static let markingElementNames = ["TAKE_TYPE", "CIRCLED", "NOTE"]

    /// The `bext` chunk: the description above, originator `jcap`, the origination date and time
    /// in local time, and the first sample's time reference.
    package var broadcastInfo: BroadcastInfo {
        let (date, time) = TakeFileMetadata.localDateAndTime(microsecondsSinceEpoch: originationMicrosecondsSinceEpoch,
                                                             timeZone: timeZone)
        return BroadcastInfo(description: broadcastDescription, originator: "jcap", originationDate: date,
                             originationTime: time, timeReference: timeReference, version: 2)
    }

    /// The `iXML` chunk's document (iXML 2.10): PROJECT, SCENE and TAPE (when the session names
    /// them), TAKE, TAKE_TYPE (DEFAULT, FALSE_START or NO_GOOD), CIRCLED (TRUE or FALSE), NOTE,
    /// SPEED with the time stamp in samples since midnight (as the bext chunk has it), and
    /// TRACK_LIST with each track's channel (CHANNEL_INDEX and INTERLEAVE_INDEX: jcap's channel is
    /// the file's channel) and NAME. Text is XML-escaped, and characters XML cannot hold are left
    /// out.
    package var iXML: String {
        let escape = TakeFileMetadata.xmlEscaped
        let reference = timeReference
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<BWFXML>",
            "  <IXML_VERSION>2.10</IXML_VERSION>",
            "  <PROJECT>\(escape(sessionName))</PROJECT>",
        ]
        if let scene, !scene.isEmpty { lines.append("  <SCENE>\(escape(scene))</SCENE>") }
        if let tape, !tape.isEmpty { lines.append("  <TAPE>\(escape(tape))</TAPE>") }
        lines.append("  <TAKE>\(takeNumber)</TAKE>")
        lines += markingElements
        lines += [
            "  <SPEED>",
            "    <FILE_SAMPLE_RATE>\(sampleRate)</FILE_SAMPLE_RATE>",
            "    <TIMESTAMP_SAMPLE_RATE>\(sampleRate)</TIMESTAMP_SAMPLE_RATE>",
            "    <TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI>\(reference >> 32)</TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_HI>",
            "    <TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO>\(reference & 0xFFFF_FFFF)</TIMESTAMP_SAMPLES_SINCE_MIDNIGHT_LO>",
            "  </SPEED>",
            "  <TRACK_LIST>",
            "    <TRACK_COUNT>\(tracks.count)</TRACK_COUNT>",
        ]
        for track in tracks {
            lines += [
                "    <TRACK>",
                "      <CHANNEL_INDEX>\(track.channel)</CHANNEL_INDEX>",
                "      <INTERLEAVE_INDEX>\(track.channel)</INTERLEAVE_INDEX>",
                "      <NAME>\(escape(track.name))</NAME>",
                "    </TRACK>",
            ]
        }
        lines += ["  </TRACK_LIST>", "</BWFXML>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Spaces after the iXML document, room for a mark and a note set after the take.
    package static let iXMLReserveBytes = 1_024

    /// The text tags for FLAC and Ogg: title the track names (or the session and take when none is
    /// named), album the session, comment the take (and note), software jcap, date the local
    /// origination date.
    package var tags: [(tag: SoundFileTag, value: String)] {
        let title = tracks.isEmpty ? "\(sessionName) take \(takeNumber)" : tracks.map(\.name).joined(separator: ", ")
        var comment = "take \(takeNumber)"
        if let note, !note.isEmpty { comment += ": \(note)" }
        let date = TakeFileMetadata.localDateAndTime(microsecondsSinceEpoch: originationMicrosecondsSinceEpoch,
                                                     timeZone: timeZone).date
        return [(.title, title), (.album, sessionName), (.comment, comment), (.software, "jcap"), (.date, date)]
    }

    /// Text as XML character data or an attribute value: `& < > " '` escaped; control characters
    /// other than tab and newlines (which XML 1.0 cannot hold at all) and U+FFFE/U+FFFF dropped.
    package static func xmlEscaped(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: continue
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}

/// What `SoundFile.apply` wrote.
package struct WrittenMetadata: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    package static let broadcastInfo = WrittenMetadata(rawValue: 1 << 0)
    package static let iXML = WrittenMetadata(rawValue: 1 << 1)
    package static let tags = WrittenMetadata(rawValue: 1 << 2)
}

extension SoundFile {
    /// Writes what the container can carry of a take's metadata; call it after creating the file,
    /// before the first write of audio.
    ///
    /// - WAV and RF64 (jcap's `.wav`, RF64 that stays a WAV while it is small enough, and `.rf64`):
    ///   a BWF `bext` chunk and an `iXML` chunk.
    /// - W64: nothing. libsndfile 1.2.0 writes neither bext, nor any other chunk, nor tags to a
    ///   W64 file (measured: SFC_SET_BROADCAST_INFO returns false, sf_set_chunk and sf_set_string
    ///   refuse); a take that needs them is better recorded to RF64.
    /// - FLAC and Ogg (Vorbis and Opus): tags (`TakeFileMetadata.tags`).
    /// - Other containers: nothing.
    ///
    /// The iXML document is padded with spaces to a multiple of 4 bytes: libsndfile would pad the
    /// chunk with zero bytes, which strict XML parsers refuse. `iXMLReserveBytes` more spaces
    /// leave room for a note added after the take, so that `TakeFileMarking` rewrites the chunk
    /// in place instead of copying the file.
    ///
    /// - Returns: what was written.
    /// - Throws: `.metadataRefused` when a track's channel is not in the file, the metadata's
    ///   sample rate is not the file's, or libsndfile refuses (audio already written).
    @discardableResult
    package func apply(_ metadata: TakeFileMetadata) throws(CaptureError) -> WrittenMetadata {
        for track in metadata.tracks where !(1...max(1, channels)).contains(track.channel) {
            throw .metadataRefused(path: path, item: "track '\(track.name)'",
                                   reason: "channel \(track.channel) is not one of the file's 1-\(channels)")
        }
        guard metadata.sampleRate == sampleRate else {
            throw .metadataRefused(path: path, item: "the take's metadata",
                                   reason: "it is for \(metadata.sampleRate) Hz but the file is \(sampleRate) Hz")
        }
        switch format & Int32(SF_FORMAT_TYPEMASK) {
        case Int32(SF_FORMAT_WAV), Int32(SF_FORMAT_WAVEX), Int32(SF_FORMAT_RF64):
            try setBroadcastInfo(metadata.broadcastInfo)
            var document = Array(metadata.iXML.utf8)
            document += Array(repeating: UInt8(ascii: " "), count: (4 - document.count % 4) % 4 + TakeFileMetadata.iXMLReserveBytes)
            try setChunk(id: "iXML", data: document)
            return [.broadcastInfo, .iXML]
        case Int32(SF_FORMAT_FLAC), Int32(SF_FORMAT_OGG):
            for (tag, value) in metadata.tags { try setString(tag, value) }
            return .tags
        default:
            return []
        }
    }
}

extension Comparable {
    fileprivate func clamped(to range: ClosedRange<Self>) -> Self {
        min(max(self, range.lowerBound), range.upperBound)
    }
}
