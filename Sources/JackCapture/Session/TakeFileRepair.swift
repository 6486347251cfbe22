import CLinux
import CSndfile
import Foundation

/// Measures a killed take's file and repairs its header so every complete frame written is
/// readable.
///
/// Why: the writer rewrites the header twice a second (`SoundFile.updateHeader`), so after
/// kill -9 a WAV, RF64 or W64 file holds up to half a second more audio than its header says,
/// and every reader stops where the header does. The audio is all there: only the sizes lag.
/// Repair walks the chunks to the audio data, counts the whole frames (blocks, for ADPCM)
/// between the data's start and the end of the file, and rewrites the sizes that describe them
/// in place (RIFF: the RIFF and data sizes and `fact`'s frame count; RF64: `ds64`'s RIFF size,
/// data size and sample count; W64: the riff and data chunk sizes and `fact`'s count). A plain
/// RIFF file that grew past 4 GB before its header said RF64 becomes RF64 in place, in the room
/// libsndfile reserves for `ds64` (a `JUNK` chunk). No audio byte is written or cut: a partial
/// frame at the end stays in the file, outside the data chunk.
///
/// A file written around the page cache (`DirectFile`) reaches past its audio into space
/// allocated ahead and never written, which the file system reports as unwritten: that is cut off
/// first (all that is ever truncated). Its last block may then be a partial block written padded
/// with zeros for a header rewrite: the zero bytes ending that block are not counted as audio,
/// past what the header declares (so up to 4 KiB of exact digital silence ending a killed take,
/// which looks the same, goes with them).
///
/// A header that already describes the file (its data chunk ends at the end of the file, or is
/// followed only by well-formed chunks, as in a file closed normally) is left as it is, so
/// repair is safe to run twice and never swallows a trailing chunk into the audio.
///
/// libsndfile 1.2.0 itself reads a W64 file up to its end whatever the header says, but other
/// readers (and libsndfile for WAV and RF64) trust the header, so W64 is repaired too.
///
/// Other containers (FLAC, CAF, AIFF, Ogg, ...) are not touched: their length is what libsndfile
/// reads (FLAC and Ogg have none in the header to lag; CAF and AIFF keep the lagging length), or,
/// when libsndfile reports an unknown length (a killed FLAC take), the frames it decodes; a FLAC
/// file's STREAMINFO then gets that total (`FlacStreamInfo`), its only change.
enum TakeFileRepair {
    struct Measurement: Equatable {
        /// Frames a reader gets from the file now, at the file's own rate.
        var frames: Int64
        /// The file's sample rate, when it could be read.
        var sampleRate: Int?
        /// True when the header was rewritten.
        var repaired: Bool
    }

    /// Measures (and, for WAV, RF64 and W64, repairs) the file at `path`; a missing file measures
    /// 0 frames. A file that neither the chunk walk nor libsndfile can read also measures 0 and is
    /// left untouched.
    static func measureAndRepair(path: String) throws(TakeLogError) -> Measurement {
        let descriptor = Glibc.open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return Measurement(frames: 0, sampleRate: nil, repaired: false) }
            throw .cannotRepair(path: path, reason: String(cString: strerror(code)))
        }
        defer { Glibc.close(descriptor) }
        let file = RawFile(descriptor: descriptor, path: path)
        var repaired = try file.cutUnwrittenTail()
        var measured: (frames: Int64, sampleRate: Int)?
        if let layout = try file.waveLayout() {
            let plan = try layout.repairPlan(in: file, endsInPaddedBlock: repaired)
            // Only fields that would change: a file repaired before whose last frame was partial
            // (its data ends a few bytes before the file does) is planned the same writes again.
            var writes: [WaveLayout.Write] = []
            for write in plan.writes where try file.read(write.bytes.count, at: write.offset) != write.bytes {
                writes.append(write)
            }
            if !writes.isEmpty {
                for write in writes { try file.write(write.bytes, at: write.offset) }
                guard fsync(descriptor) == 0 else {
                    throw .cannotRepair(path: path, reason: String(cString: strerror(errno)))
                }
                repaired = true
            }
            measured = (plan.frames, layout.sampleRate)
        }
        // What libsndfile reads is what every reader will get: it has the last word, and is the
        // only word for the containers not repaired here.
        if let reader = try? SoundFile.open(readingFrom: path) {
            // A killed FLAC file's STREAMINFO says 0 samples, which libsndfile reports as an
            // unknown length (SF_COUNT_MAX): the frames it decodes are what it holds.
            let unknown = SoundFile.isUnknownLength(reader.frames)
            let frames = unknown ? reader.countFramesByReading() : reader.frames
            let sampleRate = reader.sampleRate
            try? reader.close()
            // Said in the file too, so every reader knows where it ends (and can seek in it).
            if unknown, try FlacStreamInfo.setUnknownTotal(to: frames, in: file) {
                guard fsync(descriptor) == 0 else {
                    throw .cannotRepair(path: path, reason: String(cString: strerror(errno)))
                }
                repaired = true
            }
            return Measurement(frames: frames, sampleRate: sampleRate, repaired: repaired)
        }
        return Measurement(frames: measured?.frames ?? 0, sampleRate: measured?.sampleRate, repaired: repaired)
    }
}

/// A file read and written with pread/pwrite at explicit offsets.
struct RawFile {
    let descriptor: Int32
    let path: String

    func size() throws(TakeLogError) -> Int64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .cannotRepair(path: path, reason: String(cString: strerror(errno))) }
        return Int64(info.st_size)
    }

    /// Cuts off the space allocated and never written that ends the file (`DirectFile`
    /// allocates ahead of its writes); true when there was some. A hole (a sparse file's) is
    /// not that, and is left alone.
    func cutUnwrittenTail() throws(TakeLogError) -> Bool {
        let size = try size()
        let start = jcap_unwritten_tail(descriptor, size, 2 * DirectFile.mostAllocatedAhead)
        guard start >= 0, start < size else { return false }
        guard ftruncate(descriptor, off_t(start)) == 0, fsync(descriptor) == 0 else {
            throw .cannotRepair(path: path, reason: String(cString: strerror(errno)))
        }
        return true
    }

    /// Exactly `count` bytes at `offset`, or nil if the file ends first.
    func read(_ count: Int, at offset: Int64) throws(TakeLogError) -> [UInt8]? {
        guard count >= 0, offset >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let result = bytes[done...].withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset) + off_t(done)) }
            if result < 0 {
                if errno == EINTR { continue }
                throw .cannotRepair(path: path, reason: String(cString: strerror(errno)))
            }
            if result == 0 { return nil }
            done += result
        }
        return bytes
    }

    func write(_ bytes: [UInt8], at offset: Int64) throws(TakeLogError) {
        var done = 0
        while done < bytes.count {
            let result = bytes[done...].withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset) + off_t(done)) }
            if result < 0 {
                if errno == EINTR { continue }
                throw .cannotRepair(path: path, reason: String(cString: strerror(errno)))
            }
            done += result
        }
    }

    /// The layout of a WAV (RIFF), RF64 or W64 file up to its audio data, or nil for any other
    /// file, for a codec whose frames cannot be counted from bytes, or for a header too damaged
    /// to walk.
    func waveLayout() throws(TakeLogError) -> WaveLayout? {
        let start: [UInt8]
        if let long = try read(40, at: 0) {
            start = long
        } else if let short = try read(12, at: 0) {
            start = short
        } else {
            return nil
        }
        let id = fourCC(start, 0)
        if id == "RIFF" || id == "RF64", fourCC(start, 8) == "WAVE" {
            return try riffLayout(isRF64: id == "RF64")
        }
        if start.count >= 40, Array(start[0..<16]) == WaveLayout.w64Riff, Array(start[24..<40]) == WaveLayout.w64Wave {
            return try w64Layout()
        }
        return nil
    }

    private func riffLayout(isRF64: Bool) throws(TakeLogError) -> WaveLayout? {
        let fileSize = try size()
        var layout = WaveLayout(container: isRF64 ? .rf64 : .riff)
        var offset: Int64 = 12
        var ds64Sizes: (riff: UInt64, data: UInt64)?
        for _ in 0..<10_000 {
            guard let header = try read(8, at: offset) else { return nil }
            let id = fourCC(header, 0)
            let size = UInt64(le32(header, 4))
            if id == "data" {
                layout.dataChunkOffset = offset
                layout.dataStart = offset + 8
                if isRF64, size == 0xFFFF_FFFF, let ds64Sizes {
                    layout.headerDataSize = ds64Sizes.data
                } else {
                    layout.headerDataSize = size
                }
                return layout.isComplete ? layout : nil
            }
            let body = offset + 8
            switch id {
            case "ds64" where isRF64:
                guard size >= 24, let fields = try read(24, at: body) else { return nil }
                layout.ds64Offset = offset
                ds64Sizes = (le64(fields, 0), le64(fields, 8))
            case "fmt ":
                guard size >= 16, let fields = try read(Int(min(size, 40)), at: body) else { return nil }
                layout.readFormat(fields)
            case "fact":
                if size >= 4 { layout.factOffset = offset }
            default:
                break
            }
            layout.chunksBeforeData.append(WaveLayout.Chunk(id: id, offset: offset, size: size))
            let next = body + Int64(size) + Int64(size & 1)
            guard next + 8 <= fileSize else { return nil }
            offset = next
        }
        return nil
    }

    private func w64Layout() throws(TakeLogError) -> WaveLayout? {
        let fileSize = try size()
        var layout = WaveLayout(container: .w64)
        var offset: Int64 = 40
        for _ in 0..<10_000 {
            guard let header = try read(24, at: offset) else { return nil }
            let size = le64(header, 16)
            guard size >= 24, size < UInt64(Int64.max / 2) else { return nil }
            let guid = Array(header[0..<16])
            if guid == WaveLayout.w64Guid("data") {
                layout.dataChunkOffset = offset
                layout.dataStart = offset + 24
                layout.headerDataSize = size - 24
                return layout.isComplete ? layout : nil
            }
            if guid == WaveLayout.w64Guid("fmt ") {
                guard size >= 40, let fields = try read(Int(min(size - 24, 40)), at: offset + 24) else { return nil }
                layout.readFormat(fields)
            } else if guid == WaveLayout.w64Guid("fact"), size >= 32 {
                layout.factOffset = offset
            }
            let next = offset + Int64((size + 7) & ~7)
            guard next + 24 <= fileSize else { return nil }
            offset = next
        }
        return nil
    }

    /// True when the bytes from `start` to `end` are whole, well-formed chunks (four printable
    /// ASCII characters and a size that fits), ending exactly at `end`: what follows the data in
    /// a file closed normally, and what audio bytes almost never look like.
    func isChunkChain(from start: Int64, to end: Int64, w64: Bool) throws(TakeLogError) -> Bool {
        var offset = start
        for _ in 0..<1_000 {
            if offset == end { return true }
            let headerSize = w64 ? 24 : 8
            guard offset + Int64(headerSize) <= end, let header = try read(headerSize, at: offset) else { return false }
            guard header[0..<4].allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return false }
            let next: Int64
            if w64 {
                let size = le64(header, 16)
                guard size >= 24, size <= UInt64(end - offset) else { return false }
                next = offset + Int64(size)
                // The last chunk need not be padded to 8 bytes.
                offset = next == end ? end : min(end + 1, offset + Int64((size + 7) & ~7))
            } else {
                let size = Int64(le32(header, 4))
                next = offset + 8 + size
                guard next <= end else { return false }
                offset = next == end ? end : next + (size & 1)
            }
        }
        return false
    }
}

/// Where a WAV, RF64 or W64 file's header fields are, and how to rewrite them.
struct WaveLayout {
    enum Container { case riff, rf64, w64 }

    struct Chunk {
        var id: String
        var offset: Int64
        var size: UInt64
    }

    struct Write {
        var offset: Int64
        var bytes: [UInt8]
    }

    struct Plan {
        var frames: Int64
        var writes: [Write]
    }

    var container: Container
    var dataChunkOffset: Int64 = -1
    var dataStart: Int64 = -1
    var headerDataSize: UInt64 = 0
    var ds64Offset: Int64?
    var factOffset: Int64?
    var blockAlign = 0
    var framesPerBlock = 0
    var sampleRate = 0
    /// RIFF and RF64 chunks before `data`, in file order (for turning RIFF into RF64).
    var chunksBeforeData: [Chunk] = []

    var isComplete: Bool {
        dataStart > 0 && blockAlign > 0 && framesPerBlock > 0 && (container != .rf64 || ds64Offset != nil)
    }

    /// Reads the fmt chunk's fields that count frames. Integer PCM, float, A-law and u-law hold
    /// one frame a block; IMA and MS ADPCM a block of `samplesPerBlock` frames. Any other codec
    /// leaves `framesPerBlock` 0, and the file is left to libsndfile.
    mutating func readFormat(_ fields: [UInt8]) {
        guard fields.count >= 16 else { return }
        var tag = le16(fields, 0)
        sampleRate = Int(le32(fields, 4))
        blockAlign = Int(le16(fields, 12))
        if tag == 0xFFFE, fields.count >= 26 { tag = le16(fields, 24) }
        switch tag {
        case 0x0001, 0x0003, 0x0006, 0x0007:
            framesPerBlock = 1
        case 0x0002, 0x0011:
            framesPerBlock = fields.count >= 20 ? Int(le16(fields, 18)) : 0
        default:
            framesPerBlock = 0
        }
    }

    /// The frames the file holds, and the header writes that make its header say so (none when it
    /// already does).
    func repairPlan(in file: RawFile, endsInPaddedBlock: Bool = false) throws(TakeLogError) -> Plan {
        let fileSize = try file.size()
        var available = UInt64(max(0, fileSize - dataStart))
        let align = UInt64(blockAlign)
        if endsInPaddedBlock {
            available = try withoutPadding(available, in: file, fileSize: fileSize)
        }
        if headerDataSize <= available, try headerIsFinal(in: file, fileSize: fileSize) {
            return Plan(frames: frames(blocks: headerDataSize / align), writes: [])
        }
        var blocks = available / align
        var used = blocks * align
        switch container {
        case .w64:
            var end = dataStart + Int64(used)
            // The riff chunk ends on an 8-byte boundary if the padding is there to include.
            let padded = (end + 7) & ~7
            if padded <= fileSize { end = padded }
            var writes = [Write(offset: 16, bytes: le(UInt64(end), 8)),
                          Write(offset: dataChunkOffset + 16, bytes: le(24 + used, 8))]
            if let factOffset { writes.append(Write(offset: factOffset + 24, bytes: le(UInt64(frames(blocks: blocks)), 8))) }
            return Plan(frames: frames(blocks: blocks), writes: writes)
        case .rf64:
            guard let ds64Offset else { return Plan(frames: frames(blocks: headerDataSize / align), writes: []) }
            let end = riffEnd(used: used, fileSize: fileSize)
            var writes = [Write(offset: 4, bytes: le(0xFFFF_FFFF, 4)),
                          Write(offset: ds64Offset + 8, bytes: le(UInt64(end - 8), 8) + le(used, 8) + le(UInt64(frames(blocks: blocks)), 8)),
                          Write(offset: dataChunkOffset + 4, bytes: le(0xFFFF_FFFF, 4))]
            if let factOffset { writes.append(Write(offset: factOffset + 8, bytes: le(min(UInt64(frames(blocks: blocks)), 0xFFFF_FFFF), 4))) }
            return Plan(frames: frames(blocks: blocks), writes: writes)
        case .riff:
            if UInt64(riffEnd(used: used, fileSize: fileSize) - 8) > 0xFFFF_FFFF {
                if let header = try rf64Header(in: file, used: used, blocks: blocks, fileSize: fileSize) {
                    return Plan(frames: frames(blocks: blocks),
                                writes: [Write(offset: 0, bytes: header),
                                         Write(offset: dataChunkOffset + 4, bytes: le(0xFFFF_FFFF, 4))])
                }
                // No room for ds64: the header describes as much as a RIFF header can; the rest
                // stays in the file (recoverable by a tool that ignores the sizes).
                let room = UInt64(0xFFFF_FFFF) - 1
                blocks = UInt64(dataStart - 8) < room ? (room - UInt64(dataStart - 8)) / align : 0
                used = blocks * align
            }
            let end = riffEnd(used: used, fileSize: fileSize)
            var writes = [Write(offset: 4, bytes: le(UInt64(end - 8), 4)),
                          Write(offset: dataChunkOffset + 4, bytes: le(used, 4))]
            if let factOffset { writes.append(Write(offset: factOffset + 8, bytes: le(min(UInt64(frames(blocks: blocks)), 0xFFFF_FFFF), 4))) }
            return Plan(frames: frames(blocks: blocks), writes: writes)
        }
    }

    /// Frames in `blocks` blocks, saturating: a damaged fmt chunk (a one-byte block of 65,535
    /// frames) must not make a large file overflow the count.
    private func frames(blocks: UInt64) -> Int64 {
        let (product, overflow) = blocks.multipliedReportingOverflow(by: UInt64(framesPerBlock))
        return overflow || product > UInt64(Int64.max) ? Int64.max : Int64(product)
    }

    /// True when the header's data size ends the data at the end of the file, or where only
    /// well-formed chunks follow (with or without the pad byte after odd-sized data).
    private func headerIsFinal(in file: RawFile, fileSize: Int64) throws(TakeLogError) -> Bool {
        let end = dataStart + Int64(headerDataSize)
        if end == fileSize { return true }
        let w64 = container == .w64
        if try file.isChunkChain(from: end, to: fileSize, w64: w64) { return true }
        let padded = w64 ? (end + 7) & ~7 : end + Int64(headerDataSize & 1)
        guard padded != end, padded <= fileSize else { return false }
        return try file.isChunkChain(from: padded, to: fileSize, w64: w64)
    }

    /// The audio bytes of `available`, the zero bytes ending the file's last 4 KiB block (a
    /// partial block written padded) left out: up to the last byte that is not zero, rounded up
    /// to a whole frame (a frame may end in zero bytes), and never less than the header declares.
    private func withoutPadding(_ available: UInt64, in file: RawFile, fileSize: Int64) throws(TakeLogError) -> UInt64 {
        let blockSize = Int64(DirectFile.blockSize)
        let lastBlock = max(dataStart, (fileSize - 1) / blockSize * blockSize)
        guard fileSize > lastBlock, let bytes = try file.read(Int(fileSize - lastBlock), at: lastBlock) else { return available }
        let audioEnd = lastBlock + Int64(bytes.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0)
        let align = UInt64(blockAlign)
        var kept = (UInt64(audioEnd - dataStart) + align - 1) / align * align
        if headerDataSize <= available { kept = max(kept, headerDataSize) }
        return min(available, kept)
    }

    /// Where the RIFF chunk ends: after the data and its pad byte, if the pad byte is there.
    private func riffEnd(used: UInt64, fileSize: Int64) -> Int64 {
        let end = dataStart + Int64(used)
        return used & 1 == 1 && end < fileSize ? end + 1 : end
    }

    /// A header that turns this RIFF file into RF64, the same length as the old one up to the
    /// data chunk's size: `RF64`, a `ds64` chunk, every chunk before the data but the ones RF64
    /// replaces (`JUNK`, `fact`, padding), and a `JUNK` chunk filling the rest. Nil when there is
    /// no room (only files with a reserved `JUNK` chunk, like libsndfile's, have it).
    private func rf64Header(in file: RawFile, used: UInt64, blocks: UInt64, fileSize: Int64) throws(TakeLogError) -> [UInt8]? {
        var header = Array("RF64".utf8) + le(0xFFFF_FFFF, 4) + Array("WAVE".utf8)
        let end = riffEnd(used: used, fileSize: fileSize)
        header += Array("ds64".utf8) + le(28, 4) + le(UInt64(end - 8), 8) + le(used, 8)
            + le(UInt64(frames(blocks: blocks)), 8) + le(0, 4)
        for chunk in chunksBeforeData where !["JUNK", "junk", "fact", "PAD ", "FLLR"].contains(chunk.id) {
            let length = 8 + Int(chunk.size) + Int(chunk.size & 1)
            guard header.count + length <= Int(dataChunkOffset) else { return nil }
            guard let bytes = try file.read(length, at: chunk.offset) else { return nil }
            header += bytes
        }
        let gap = Int(dataChunkOffset) - header.count
        guard gap == 0 || gap >= 8 else { return nil }
        if gap >= 8 { header += Array("JUNK".utf8) + le(UInt64(gap - 8), 4) + [UInt8](repeating: 0, count: gap - 8) }
        return header + Array("data".utf8)
    }

    static let w64Riff: [UInt8] = Array("riff".utf8) + [0x2E, 0x91, 0xCF, 0x11, 0xA5, 0xD6, 0x28, 0xDB, 0x04, 0xC1, 0x00, 0x00]
    static let w64Wave = w64Guid("wave")

    /// A Sony Wave64 chunk GUID: the chunk's four characters and a fixed tail.
    static func w64Guid(_ name: String) -> [UInt8] {
        Array(name.utf8) + [0xF3, 0xAC, 0xD3, 0x11, 0x8C, 0xD1, 0x00, 0xC0, 0x4F, 0x8E, 0xDB, 0x8A]
    }
}

// MARK: Little-endian fields

private func fourCC(_ bytes: [UInt8], _ offset: Int) -> String {
    String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
}

private func le16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
    UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
}

private func le32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
}

private func le64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
    (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
}

private func le(_ value: UInt64, _ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}
