import Foundation

/// Rewrites the bext description and the iXML chunk of a finished WAV or RF64 file, without
/// touching a byte of its audio. libsndfile cannot: a chunk set after the first write of audio
/// is written over the first samples (see `SoundFile.setChunk`).
///
/// - The bext description has a fixed size (256 bytes): it is overwritten where it is.
/// - An iXML document that fits the chunk as it is (jcap leaves `TakeFileMetadata.iXMLReserveBytes`
///   of spaces after its own) is written over the old one, padded with spaces: one write inside
///   the chunk's bytes.
/// - A longer one needs a larger chunk: the file is copied next to itself with the new chunk
///   (every other byte as it was, the RIFF or RF64 size updated), flushed, and renamed over the
///   old one, so that a crash leaves the old file or the new one, never half of each.
///
/// The file is locked (flock) while it is rewritten, so two processes marking the same take
/// take turns. Not for a file libsndfile has open for writing: it rewrites its header on close.
package enum RIFFMetadataRewriter {
    /// How the iXML chunk was rewritten.
    package enum Method: Equatable, Sendable {
        /// Within the chunk's bytes.
        case inPlace
        /// Into a copy of the file renamed over it (the chunk grew).
        case copied
    }

    /// A chunk of the file: where its header starts, where its data starts, and its length.
    package struct Chunk: Equatable, Sendable {
        package var id: String
        package var headerOffset: Int64
        package var dataOffset: Int64
        package var size: Int64
        /// The first byte after the chunk and its pad byte.
        package var end: Int64 { dataOffset + size + (size & 1) }
    }

    /// The file's form (`RIFF`, `RF64` or `BW64`) and chunks in order, up to the last whole one.
    package static func chunks(of path: String) throws(CaptureError) -> (form: String, chunks: [Chunk]) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreadable(path, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        return try chunks(descriptor, path: path)
    }

    /// Sets the bext description and replaces the iXML document of the WAV or RF64 file at `path`.
    /// A file without a bext chunk keeps none; one without an iXML chunk is refused.
    ///
    /// - Returns: how the iXML chunk was rewritten.
    /// - Throws: `.metadataRefused` for a file that is not WAV or RF64 or lacks an iXML chunk, or
    ///   when a read, a write or the rename fails (the file is then as it was, or, for a failed
    ///   write in place, its old audio with a damaged iXML chunk).
    @discardableResult
    package static func rewrite(path: String, description: String?, iXML document: String) throws(CaptureError) -> Method {
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw refused(path, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else { throw refused(path, String(cString: strerror(errno))) }
        let (form, chunks) = try chunks(descriptor, path: path)
        guard let iXML = chunks.first(where: { $0.id == "iXML" }) else {
            throw refused(path, "it has no iXML chunk (\(form) file)")
        }
        var bytes = Array(document.utf8)
        if bytes.count <= iXML.size {
            bytes += Array(repeating: UInt8(ascii: " "), count: Int(iXML.size) - bytes.count)
            try write(bytes, at: iXML.dataOffset, to: descriptor, path: path)
            if let description, let bext = chunks.first(where: { $0.id == "bext" }) {
                try write(descriptionField(description), at: bext.dataOffset, to: descriptor, path: path, within: bext)
            }
            guard fsync(descriptor) == 0 else { throw refused(path, String(cString: strerror(errno))) }
            return .inPlace
        }
        // Room for the next note too, as when the file was made.
        bytes += Array(repeating: UInt8(ascii: " "), count: (4 - bytes.count % 4) % 4 + TakeFileMetadata.iXMLReserveBytes)
        try copy(descriptor, path: path, form: form, chunks: chunks, replacing: iXML, with: bytes, description: description)
        return .copied
    }

    /// A marker for `setCues`: a sample frame of the file and its label.
    package struct Cue: Equatable, Sendable {
        package var frame: UInt32
        package var label: String

        package init(frame: UInt32, label: String) {
            self.frame = frame
            self.label = label
        }
    }

    /// Writes `cues` as the file's marker list: a RIFF `cue ` chunk with a `LIST`/`adtl` chunk of
    /// `labl` labels after it, which DAWs (REAPER, Audition, WaveLab, Sound Forge) read as markers.
    /// Both go at the end of the file, after the audio, so nothing is copied: a cue list jcap
    /// wrote before (the file's last chunks) is written over; a file whose cue list is elsewhere
    /// is refused. The RIFF (or RF64's ds64) size is updated last, so that a crash leaves the
    /// audio and the chunks before it as they were.
    package static func setCues(path: String, _ cues: [Cue]) throws(CaptureError) {
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw refused(path, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else { throw refused(path, String(cString: strerror(errno))) }
        let (form, chunks) = try chunks(descriptor, path: path)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw refused(path, String(cString: strerror(errno))) }
        guard let last = chunks.last, last.end == Int64(status.st_size) || last.dataOffset + last.size == Int64(status.st_size) else {
            throw refused(path, "it does not end with a whole chunk")
        }
        // The cue list jcap wrote before: `cue ` and the adtl LIST, the file's last chunks.
        var end = max(last.end, Int64(status.st_size))
        var cueList: [Chunk] = []
        for chunk in chunks.reversed() {
            guard chunk.id == "cue " || (chunk.id == "LIST" && (try? read(4, at: chunk.dataOffset, from: descriptor, path: path)) == Array("adtl".utf8)) else { break }
            cueList.append(chunk)
        }
        if let first = cueList.last { end = first.headerOffset }
        if chunks.contains(where: { $0.id == "cue " && $0.headerOffset < end }) {
            throw refused(path, "it has a cue list before its audio ends, which jcap did not write")
        }
        guard !cues.isEmpty || !cueList.isEmpty else { return }
        let bytes = cueListBytes(cues)
        try write(bytes, at: end, to: descriptor, path: path)
        let newSize = end + Int64(bytes.count)
        guard ftruncate(descriptor, off_t(newSize)) == 0 else { throw refused(path, String(cString: strerror(errno))) }
        if form == "RIFF" {
            guard let riffSize = UInt32(exactly: newSize - 8) else { throw refused(path, "the file would outgrow a RIFF file's 4 GiB") }
            try write(withUnsafeBytes(of: riffSize.littleEndian) { Array($0) }, at: 4, to: descriptor, path: path)
        } else if let ds64 = chunks.first(where: { $0.id == "ds64" }) {
            try write(withUnsafeBytes(of: UInt64(newSize - 8).littleEndian) { Array($0) }, at: ds64.dataOffset, to: descriptor, path: path)
        } else {
            throw refused(path, "it is an RF64 file without a ds64 chunk")
        }
        guard fsync(descriptor) == 0 else { throw refused(path, String(cString: strerror(errno))) }
    }

    /// The `cue ` chunk (one 24-byte point a cue, ids from 1, each in the `data` chunk at its
    /// frame) and the `LIST`/`adtl` chunk labelling each id; empty for no cues.
    static func cueListBytes(_ cues: [Cue]) -> [UInt8] {
        guard !cues.isEmpty else { return [] }
        func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
        var cue = Array("cue ".utf8) + le32(UInt32(4 + 24 * cues.count)) + le32(UInt32(cues.count))
        for (index, point) in cues.enumerated() {
            let id = UInt32(index + 1)
            // id, position (in play order), the chunk it is in, chunk start, block start, sample offset.
            cue += le32(id) + le32(point.frame) + Array("data".utf8) + le32(0) + le32(0) + le32(point.frame)
        }
        var labels = Array("adtl".utf8)
        for (index, point) in cues.enumerated() {
            var text = Array(point.label.utf8.prefix(255)) + [0]
            let size = UInt32(4 + text.count)
            if text.count % 2 == 1 { text.append(0) }
            labels += Array("labl".utf8) + le32(size) + le32(UInt32(index + 1)) + text
        }
        return cue + Array("LIST".utf8) + le32(UInt32(labels.count)) + labels
    }

    // MARK: Reading the chunk list

    private static func chunks(_ descriptor: Int32, path: String) throws(CaptureError) -> (form: String, chunks: [Chunk]) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw unreadable(path, String(cString: strerror(errno))) }
        let fileSize = Int64(status.st_size)
        let header = try read(12, at: 0, from: descriptor, path: path)
        let form = String(decoding: header[0..<4], as: UTF8.self)
        guard header.count == 12, ["RIFF", "RF64", "BW64"].contains(form), header[8..<12].elementsEqual("WAVE".utf8) else {
            throw unreadable(path, "not a WAV or RF64 file")
        }
        var chunks: [Chunk] = []
        var dataSize64: Int64?
        var offset: Int64 = 12
        while offset + 8 <= fileSize {
            let chunkHeader = try read(8, at: offset, from: descriptor, path: path)
            let id = String(decoding: chunkHeader[0..<4], as: UTF8.self)
            var size = Int64(littleEndian32(chunkHeader, at: 4))
            if id == "ds64" {
                let fields = try read(16, at: offset + 8, from: descriptor, path: path)
                dataSize64 = Int64(bitPattern: littleEndian64(fields, at: 8))
            }
            if id == "data", size == 0xFFFF_FFFF, let dataSize64 { size = dataSize64 }
            let chunk = Chunk(id: id, headerOffset: offset, dataOffset: offset + 8, size: size)
            // A chunk that claims more than the file holds ends the list (an unfinished data chunk).
            guard chunk.dataOffset + size <= fileSize else { break }
            chunks.append(chunk)
            offset = chunk.end
        }
        return (form, chunks)
    }

    // MARK: Writing

    /// The bext description field: the text cut to 256 bytes at a character boundary, NUL-padded.
    static func descriptionField(_ text: String) -> [UInt8] {
        var field = Array(SoundFile.prefix(text, bytes: BroadcastInfo.descriptionBytes).utf8)
        field += Array(repeating: 0, count: BroadcastInfo.descriptionBytes - field.count)
        return field
    }

    private static func write(_ bytes: [UInt8], at offset: Int64, to descriptor: Int32, path: String,
                              within chunk: Chunk? = nil) throws(CaptureError) {
        if let chunk, Int64(bytes.count) > chunk.size { throw refused(path, "its \(chunk.id) chunk is too short") }
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) }
            guard written > 0 else {
                if written < 0, errno == EINTR { continue }
                throw refused(path, String(cString: strerror(errno)))
            }
            done += written
        }
    }

    /// Writes the file again next to itself with `chunk` replaced, then renames it over the file.
    private static func copy(_ descriptor: Int32, path: String, form: String, chunks: [Chunk], replacing chunk: Chunk,
                             with data: [UInt8], description: String?) throws(CaptureError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw refused(path, String(cString: strerror(errno))) }
        let fileSize = Int64(status.st_size)
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = (directory.isEmpty ? "" : directory + "/") + ".\(name).jcap-rewrite"
        let output = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, status.st_mode & 0o7777)
        guard output >= 0 else { throw refused(path, "cannot write \(temporary): \(String(cString: strerror(errno)))") }
        var renamed = false
        defer {
            close(output)
            if !renamed { unlink(temporary) }
        }
        var chunkHeader = Array("iXML".utf8)
        chunkHeader += withUnsafeBytes(of: UInt32(data.count).littleEndian) { Array($0) }
        try copyRange(from: descriptor, 0..<chunk.headerOffset, to: output, path: path)
        try write(chunkHeader + data, at: chunk.headerOffset, to: output, path: temporary)
        let shift = Int64(chunkHeader.count + data.count) - (chunk.end - chunk.headerOffset)
        try copyRange(from: descriptor, chunk.end..<fileSize, to: output, path: path, shiftedBy: shift)
        let newSize = fileSize + shift
        if form == "RIFF" {
            guard let riffSize = UInt32(exactly: newSize - 8) else { throw refused(path, "the file would outgrow a RIFF file's 4 GiB") }
            try write(withUnsafeBytes(of: riffSize.littleEndian) { Array($0) }, at: 4, to: output, path: temporary)
        } else if let ds64 = chunks.first(where: { $0.id == "ds64" }), ds64.headerOffset < chunk.headerOffset {
            try write(withUnsafeBytes(of: UInt64(newSize - 8).littleEndian) { Array($0) }, at: ds64.dataOffset, to: output, path: temporary)
        } else {
            throw refused(path, "its ds64 chunk does not precede the iXML chunk")
        }
        if let description, let bext = chunks.first(where: { $0.id == "bext" }) {
            let offset = bext.headerOffset < chunk.headerOffset ? bext.dataOffset : bext.dataOffset + shift
            try write(descriptionField(description), at: offset, to: output, path: temporary, within: bext)
        }
        guard fsync(output) == 0 else { throw refused(path, "cannot write \(temporary): \(String(cString: strerror(errno)))") }
        guard rename(temporary, path) == 0 else { throw refused(path, "cannot rename \(temporary): \(String(cString: strerror(errno)))") }
        renamed = true
        let directoryDescriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// Copies `range` of the input to the same place, moved by `shift`, in the output.
    private static func copyRange(from input: Int32, _ range: Range<Int64>, to output: Int32, path: String,
                                  shiftedBy shift: Int64 = 0) throws(CaptureError) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let wanted = Int(min(Int64(buffer.count), range.upperBound - offset))
            let count = buffer.withUnsafeMutableBytes { pread(input, $0.baseAddress!, wanted, off_t(offset)) }
            guard count > 0 else {
                if count < 0, errno == EINTR { continue }
                throw refused(path, count == 0 ? "the file ended early" : String(cString: strerror(errno)))
            }
            try write(Array(buffer[0..<count]), at: offset + shift, to: output, path: path)
            offset += Int64(count)
        }
    }

    // MARK: Helpers

    private static func read(_ count: Int, at offset: Int64, from descriptor: Int32, path: String) throws(CaptureError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                if got == 0 { break }
                throw unreadable(path, String(cString: strerror(errno)))
            }
            done += got
        }
        guard done == count else { throw unreadable(path, "it ends inside a chunk header") }
        return bytes
    }

    private static func littleEndian32(_ bytes: [UInt8], at index: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[index + $1]) << (8 * $1) }
    }

    private static func littleEndian64(_ bytes: [UInt8], at index: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[index + $1]) << (8 * $1) }
    }

    private static func refused(_ path: String, _ reason: String) -> CaptureError {
        .metadataRefused(path: path, item: "the take's marks", reason: reason)
    }

    private static func unreadable(_ path: String, _ reason: String) -> CaptureError {
        .metadataUnreadable(path: path, item: "its chunks", reason: reason)
    }
}
