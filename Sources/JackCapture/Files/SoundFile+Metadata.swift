import CSndfile

/// The fields of a Broadcast Wave `bext` chunk (EBU Tech 3285) that a recording fills in: what
/// DAWs and archives read to know where a take belongs and when it was made.
///
/// Text fields have fixed sizes in the chunk; longer text is cut to fit, at a character boundary.
/// EBU asks for ASCII; UTF-8 is stored as it is (most readers show it).
package struct BroadcastInfo: Equatable, Sendable {
    /// Free text, at most 256 bytes.
    package var description: String
    /// Who or what made the file, at most 32 bytes.
    package var originator: String
    /// The originator's identifier for the file, at most 32 bytes.
    package var originatorReference: String
    /// `yyyy-mm-dd`, local time.
    package var originationDate: String
    /// `hh:mm:ss`, local time.
    package var originationTime: String
    /// The first sample's place on the day's timeline, in samples since midnight: where a DAW
    /// puts the file when it is spotted to its timestamp.
    package var timeReference: UInt64
    /// The chunk's version. libsndfile 1.2.0 writes 2, whatever it is given.
    package var version: Int
    /// How the audio was coded, one line a step. libsndfile writes its own line
    /// (`A=PCM,F=48000,W=24,M=stereo,T=libsndfile-1.2.0`); what is set here is not written.
    package var codingHistory: String

    package init(description: String = "", originator: String = "", originatorReference: String = "",
                originationDate: String = "", originationTime: String = "", timeReference: UInt64 = 0,
                version: Int = 2, codingHistory: String = "") {
        self.description = description
        self.originator = originator
        self.originatorReference = originatorReference
        self.originationDate = originationDate
        self.originationTime = originationTime
        self.timeReference = timeReference
        self.version = version
        self.codingHistory = codingHistory
    }

    /// The size of each text field in the chunk, in bytes.
    package static let descriptionBytes = 256
    package static let originatorBytes = 32
    package static let originatorReferenceBytes = 32
    package static let originationDateBytes = 10
    package static let originationTimeBytes = 8
}

/// libsndfile's text tags (SF_STR_*): RIFF INFO items in WAV, Vorbis comments in FLAC and Ogg.
package enum SoundFileTag: Int32, CaseIterable, Sendable {
    case title = 0x01
    case copyright = 0x02
    /// libsndfile 1.2.0 adds its own name to what is set: `jcap (libsndfile-1.2.0)`.
    case software = 0x03
    case artist = 0x04
    case comment = 0x05
    case date = 0x06
    case album = 0x07
    case license = 0x08
    case trackNumber = 0x09
    case genre = 0x10
}

/// Metadata in the file beside the audio: a BWF `bext` chunk, any RIFF chunk (`iXML`), text tags.
/// Each is one libsndfile call. What a container holds, measured with libsndfile 1.2.0:
///
/// | container        | bext | chunks (iXML) | tags |
/// | ---              | ---  | ---           | ---  |
/// | WAV, RF64        | yes  | yes           | yes  |
/// | AIFF, CAF        | no   | yes           | yes  |
/// | FLAC, Ogg        | no   | no            | yes  |
/// | W64              | no   | no            | no   |
///
/// Writing them must precede the first write of audio (tags in WAV may also follow it).
extension SoundFile {
    /// Sets the BWF `bext` chunk (sf_command SFC_SET_BROADCAST_INFO): WAV and RF64 files only
    /// (libsndfile 1.2.0 refuses W64's), before the first write.
    package func setBroadcastInfo(_ info: BroadcastInfo) throws(CaptureError) {
        let result = jcap_sf_set_broadcast_info(
            handle,
            SoundFile.prefix(info.description, bytes: BroadcastInfo.descriptionBytes),
            SoundFile.prefix(info.originator, bytes: BroadcastInfo.originatorBytes),
            SoundFile.prefix(info.originatorReference, bytes: BroadcastInfo.originatorReferenceBytes),
            SoundFile.prefix(info.originationDate, bytes: BroadcastInfo.originationDateBytes),
            SoundFile.prefix(info.originationTime, bytes: BroadcastInfo.originationTimeBytes),
            info.timeReference,
            Int32(Int16(clamping: info.version)))
        guard result == Int32(SF_TRUE) else {
            throw .metadataRefused(path: path, item: "a bext chunk",
                                   reason: libraryReason(otherwise: "libsndfile writes one only to WAV and RF64 files, before the first write of audio"))
        }
    }

    /// The file's `bext` chunk (sf_command SFC_GET_BROADCAST_INFO), or nil when it has none. For a
    /// file opened for reading (or one whose chunk was set since it was opened).
    package func broadcastInfo() -> BroadcastInfo? {
        var info = SF_BROADCAST_INFO()
        guard jcap_sf_get_broadcast_info(handle, &info) == Int32(SF_TRUE) else { return nil }
        return BroadcastInfo(description: SoundFile.text(info.description),
                             originator: SoundFile.text(info.originator),
                             originatorReference: SoundFile.text(info.originator_reference),
                             originationDate: SoundFile.text(info.origination_date),
                             originationTime: SoundFile.text(info.origination_time),
                             timeReference: UInt64(info.time_reference_high) << 32 | UInt64(info.time_reference_low),
                             version: Int(info.version),
                             codingHistory: SoundFile.text(info.coding_history))
    }

    /// Adds a chunk (sf_set_chunk), such as `iXML`: WAV, RF64, AIFF and CAF files, before the
    /// first write. Refused after it: libsndfile 1.2.0 would take the chunk and rewrite the header
    /// over the first samples (measured: 2 of 480 frames gone).
    ///
    /// libsndfile 1.2.0 pads the chunk with zero bytes to a multiple of 4 and records the padded
    /// length, so a reader gets those zeros back as part of it.
    ///
    /// - Parameter id: the chunk's four-character code, printable ASCII.
    package func setChunk(id: String, data: [UInt8]) throws(CaptureError) {
        let item = "a '\(id)' chunk"
        guard id.utf8.count == 4, id.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw .metadataRefused(path: path, item: item, reason: "a chunk id is four printable ASCII characters")
        }
        guard !hasWrittenAudio else {
            throw .metadataRefused(path: path, item: item, reason: "audio is already written (a chunk must come first)")
        }
        guard let length = UInt32(exactly: data.count) else {
            throw .metadataRefused(path: path, item: item, reason: "\(data.count) bytes is more than a chunk holds")
        }
        let result = data.withUnsafeBytes { jcap_sf_set_chunk(handle, id, $0.baseAddress, length) }
        guard result == 0 else {
            throw .metadataRefused(path: path, item: item, reason: String(cString: sf_error_number(result)))
        }
    }

    /// The bytes of the first chunk named `id` (sf_get_chunk_iterator, sf_get_chunk_size,
    /// sf_get_chunk_data), or nil when the file has none. For a file opened for reading: libsndfile
    /// lists the chunks it read from the header.
    package func chunk(id: String) throws(CaptureError) -> [UInt8]? {
        guard let iterator = jcap_sf_get_chunk_iterator(handle, id) else { return nil }
        var length: UInt32 = 0
        let sizeResult = jcap_sf_get_chunk_size(iterator, &length)
        guard sizeResult == 0 else {
            throw .metadataUnreadable(path: path, item: "the '\(id)' chunk", reason: String(cString: sf_error_number(sizeResult)))
        }
        // The length comes from the file's header: a damaged one cannot make us allocate more
        // than the whole file.
        var status = stat()
        if stat(path, &status) == 0, UInt64(length) > UInt64(clamping: Int64(status.st_size)) {
            throw .metadataUnreadable(path: path, item: "the '\(id)' chunk",
                                      reason: "its header claims \(length) bytes, more than the file's \(status.st_size)")
        }
        var data = [UInt8](repeating: 0, count: Int(length))
        guard length > 0 else { return data }
        let dataResult = data.withUnsafeMutableBytes { jcap_sf_get_chunk_data(iterator, $0.baseAddress, length) }
        guard dataResult == 0 else {
            throw .metadataUnreadable(path: path, item: "the '\(id)' chunk", reason: String(cString: sf_error_number(dataResult)))
        }
        return data
    }

    /// The frames of the file's cue points (markers), as libsndfile reads them (SFC_GET_CUE, at
    /// most 100); empty when the file has none.
    package func cueFrames() -> [UInt32] {
        var offsets = [UInt32](repeating: 0, count: 100)
        let count = offsets.withUnsafeMutableBufferPointer { jcap_sf_cue_offsets(handle, $0.baseAddress, 100) }
        return count > 0 ? Array(offsets.prefix(Int(count))) : []
    }

    /// Sets a text tag (sf_set_string). FLAC and Ogg take tags only before the first write; W64
    /// takes none.
    package func setString(_ tag: SoundFileTag, _ value: String) throws(CaptureError) {
        let result = sf_set_string(handle, tag.rawValue, value)
        guard result == 0 else {
            throw .metadataRefused(path: path, item: "the \(tag) tag", reason: String(cString: sf_error_number(result)))
        }
    }

    /// A text tag (sf_get_string), or nil when the file has none.
    package func string(_ tag: SoundFileTag) -> String? {
        guard let text = sf_get_string(handle, tag.rawValue) else { return nil }
        return String(cString: text)
    }

    /// libsndfile's message for the last error on this file, or `otherwise` when it recorded none
    /// (sf_command refusals often set no error).
    private func libraryReason(otherwise: String) -> String {
        sf_error(handle) == 0 ? otherwise : String(cString: sf_strerror(handle))
    }

    /// The longest prefix of `text` that fits in `bytes` bytes of UTF-8, cut between characters.
    static func prefix(_ text: String, bytes: Int) -> String {
        var count = 0
        var end = text.startIndex
        for index in text.indices {
            let size = text[index].utf8.count
            guard count + size <= bytes else { break }
            count += size
            end = text.index(after: index)
        }
        return String(text[..<end])
    }

    /// A fixed-size char array's text: up to its first NUL, or all of it when full.
    static func text<Field>(_ field: Field) -> String {
        withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
