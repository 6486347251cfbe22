import CLinux
import CSndfile

/// An open sound file: a thin wrapper over libsndfile, one method per call.
package final class SoundFile: @unchecked Sendable {
    // @unchecked: a SNDFILE* (not thread-safe) and unlocked vars, used by one thread at a time.
    /// The `SNDFILE *`.
    let handle: OpaquePointer
    package let path: String
    package let channels: Int
    package let sampleRate: Int
    /// Frames in the file when it was opened for reading (0 for a file opened for writing).
    package let frames: Int64
    /// libsndfile's format code.
    package let format: Int32
    private var closed = false
    /// The descriptor libsndfile writes through (created files only; it closes it).
    private let descriptor: Int32?
    /// Set, the file is written around the page cache (O_DIRECT, `DirectFile`), which also owns
    /// the descriptor.
    private let direct: DirectFile?
    /// Why a file asked to be written around the page cache is not (`DiskIO.auto` fell back):
    /// its file system refuses O_DIRECT, or its encoding is compressed.
    package private(set) var directRefusal: String?
    /// Set, the file's written pages are written back and dropped as it grows (`PageCacheWindow`).
    package var pageCacheWindow: PageCacheWindow?
    /// Whether any audio has been written: libsndfile 1.2.0 accepts a chunk added after that and
    /// rewrites the header around it over the first samples, so `setChunk` refuses then.
    private(set) var hasWrittenAudio = false
    /// Frames written so far, counting the whole frames of a short write: what the file holds.
    private(set) package var framesWritten: Int64 = 0

    private init(handle: OpaquePointer, path: String, info: SF_INFO, descriptor: Int32? = nil, direct: DirectFile? = nil) {
        self.handle = handle
        self.descriptor = descriptor ?? direct?.descriptor
        self.direct = direct
        self.path = path
        channels = Int(info.channels)
        sampleRate = Int(info.samplerate)
        frames = Int64(info.frames)
        format = info.format
    }

    deinit { try? close() }

    /// Creates a file for writing (open(2) with O_EXCL, then sf_open_fd) and applies the encoder
    /// settings (sf_command). An existing file is never touched unless `overwrite`; the channel
    /// count, sample rate and format are checked (sf_format_check) before anything is created or
    /// truncated, so a bad format never damages a file.
    ///
    /// `io` says whether it is written around the page cache (`DiskIO`): then through `queue`,
    /// shared by the `files` files written at once, and opened by libsndfile's virtual I/O.
    package static func create(path: String, format: FileFormat, channels: Int, sampleRate: Int,
                              overwrite: Bool, io: DiskIO = .buffered, queue: DirectWriteQueue? = nil,
                              files: Int = 1) throws(CaptureError) -> SoundFile {
        try format.validate(channels: channels)
        try format.validate(sampleRate: sampleRate)
        var info = SF_INFO()
        // Clamped, not trapping: sf_format_check refuses more than libsndfile's 1024 channels.
        info.samplerate = Int32(clamping: sampleRate)
        info.channels = Int32(clamping: channels)
        info.format = format.sndfileFormat
        guard sf_format_check(&info) == Int32(SF_TRUE) else {
            throw .format(.libsndfileRefused(format: format.displayName,
                                             reason: "sf_format_check rejects \(channels) channels at \(sampleRate) Hz"))
        }
        let flags = O_WRONLY | O_CREAT | (overwrite ? O_TRUNC : O_EXCL)
        var directRefusal: String?
        var direct: DirectFile?
        let wantsDirect = io != .buffered && format.isWrittenSampleBySample
        if wantsDirect {
            let queue = queue ?? DirectWriteQueue(files: files)
            // O_RDWR: a header longer than the head copy is rewritten by reading its blocks back.
            let existed = access(path, F_OK) == 0
            let descriptor = Glibc.open(path, (flags & ~O_WRONLY) | O_RDWR | jcap_open_direct, 0o644)
            if descriptor >= 0 {
                direct = DirectFile(descriptor: descriptor, path: path, queue: queue)
            } else if errno == EINVAL {
                // The file system has no O_DIRECT (ramfs, tmpfs before Linux 6.6, some network
                // file systems). open(2) finds that out after creating the file (an existing
                // one is not truncated): a file that was not there is removed again.
                if !existed { unlink(path) }
                let reason = "the file system refuses O_DIRECT"
                if io == .direct { throw .directIORefused(path, reason: reason) }
                directRefusal = reason
            } else {
                let code = errno
                if code == EEXIST { throw .outputExists(path) }
                throw .outputUnwritable(path, reason: String(cString: strerror(code)))
            }
        } else if io != .buffered && !format.isWrittenSampleBySample {
            let reason = "\(format.encoding.displayName) is encoded in blocks libsndfile reads back"
            if io == .direct { throw .directIORefused(path, reason: reason) }
            directRefusal = reason
        }
        let descriptor = direct?.descriptor ?? Glibc.open(path, flags, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            if code == EEXIST { throw .outputExists(path) }
            throw .outputUnwritable(path, reason: String(cString: strerror(code)))
        }
        let (opened, code, failure) = SoundFile.openingOneAtATime { () -> (OpaquePointer?, Int32, String) in
            var table = DirectFile.virtualIO
            let handle = if let direct {
                sf_open_virtual(&table, Int32(SFM_WRITE), &info, Unmanaged.passUnretained(direct).toOpaque())
            } else {
                sf_open_fd(descriptor, Int32(SFM_WRITE), &info, Int32(SF_TRUE))
            }
            let code = direct.map { $0.errorNumber != 0 ? $0.errorNumber : errno } ?? errno
            return (handle, code, handle == nil ? String(cString: sf_strerror(nil)) : "")
        }
        guard let handle = opened else {
            let reason = failure
            if let direct { _ = direct.finish() } else { Glibc.close(descriptor) }
            unlink(path)
            // The header could not be written: a full disk is the disk's fault, not the format's.
            if code == ENOSPC || code == EDQUOT { throw SoundFile.diskFull(writing: path, errorNumber: code) }
            throw .format(.libsndfileRefused(format: "\(format.displayName) with \(channels) channels", reason: reason))
        }
        let file = direct.map { SoundFile(handle: handle, path: path, info: info, direct: $0) }
            ?? SoundFile(handle: handle, path: path, info: info, descriptor: descriptor)
        file.directRefusal = directRefusal
        do {
            try file.applyEncoderSettings(of: format)
        } catch {
            try? file.close()
            unlink(path)
            throw error
        }
        if format.isAutoDowngradingRF64 {
            _ = jcap_sf_command_bool(handle, Int32(SFC_RF64_AUTO_DOWNGRADE), 1)
        }
        // Float to integer conversion clips at full scale instead of wrapping around.
        _ = jcap_sf_command_bool(handle, Int32(SFC_SET_CLIPPING), 1)
        // The header in the file now, as sf_open_fd puts it there: a full disk is found here,
        // before the take, and leaves no file.
        if let direct, case let code = direct.writeHeaderAtCreation(), code != 0 {
            try? file.close()
            unlink(path)
            throw SoundFile.writeFailure(path, errorNumber: code)
        }
        return file
    }

    /// A write of `path` refused with ENOSPC or EDQUOT, naming the folder and its free space. The
    /// reason starts with strerror's text, as a failed write's does (`TakeStatus` counts it as
    /// `diskFull`).
    static func diskFull(writing path: String, errorNumber: Int32) -> CaptureError {
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        var reason = String(cString: strerror(errorNumber)) + ": the disk holding '\(folder.isEmpty ? "/" : folder)' is full"
        var info = statvfs()
        if statvfs(folder.isEmpty ? "/" : folder, &info) == 0 {
            reason += " (\(ByteCountText.describe(Int64(info.f_bavail) * Int64(info.f_frsize))) free)"
        }
        return .writeFailed(path: path, reason: reason)
    }

    /// A write of `path` refused with `errorNumber`: a full disk (`diskFull`) or another failure.
    static func writeFailure(_ path: String, errorNumber: Int32) -> CaptureError {
        if errorNumber == ENOSPC || errorNumber == EDQUOT { return diskFull(writing: path, errorNumber: errorNumber) }
        return .writeFailed(path: path, reason: String(cString: strerror(errorNumber)))
    }

    /// Quality (SFC_SET_VBR_ENCODING_QUALITY; for MP3 also SFC_SET_BITRATE_MODE variable, so the
    /// setting means LAME's VBR quality whatever libsndfile's default mode) and FLAC compression
    /// level (SFC_SET_COMPRESSION_LEVEL, level / 8). Each must be set before the first write.
    private func applyEncoderSettings(of format: FileFormat) throws(CaptureError) {
        func check(_ result: Int32, _ setting: String) throws(CaptureError) {
            guard result == Int32(SF_TRUE) else {
                throw .format(.libsndfileRefused(format: format.displayName,
                                                 reason: "the encoder refused \(setting) (\(String(cString: sf_strerror(handle))))"))
            }
        }
        if let quality = format.quality {
            try check(jcap_sf_set_vbr_encoding_quality(handle, quality), "quality \(quality)")
            if format.encoding == .mp3 {
                // After the quality: LAME re-reads the quality when the mode changes.
                try check(jcap_sf_set_bitrate_mode(handle, Int32(SF_BITRATE_MODE_VARIABLE)), "variable bit rate")
            }
        }
        if let level = format.compressionLevel {
            try check(jcap_sf_set_compression_level(handle, Double(level) / Double(RecordingSettings.compressionLevels.upperBound)),
                      "compression level \(level)")
        }
    }

    /// Opens an existing file for reading (sf_open).
    package static func open(readingFrom path: String) throws(CaptureError) -> SoundFile {
        var info = SF_INFO()
        let (opened, failure) = openingOneAtATime { () -> (OpaquePointer?, String) in
            let handle = sf_open(path, Int32(SFM_READ), &info)
            return (handle, handle == nil ? String(cString: sf_strerror(nil)) : "")
        }
        guard let handle = opened else { throw .outputUnwritable(path, reason: failure) }
        return SoundFile(handle: handle, path: path, info: info)
    }

    /// libsndfile keeps the reason the last open failed in one global (what `sf_strerror(NULL)`
    /// reads), written by whichever thread opens a file: so files are opened, and that reason
    /// read, one at a time (a session's recovery, a player and a split take's writer may open
    /// files at once).
    private static let openLock = Locked(())

    private static func openingOneAtATime<Result>(_ open: () -> Result) -> Result {
        openLock.withLock { _ in open() }
    }

    /// Writes `frames` interleaved frames (sf_writef_float). A short write is an error (a full
    /// disk); libsndfile's message and errno say which, and `framesWritten` counts the whole
    /// frames it did write.
    package func write(interleaved samples: UnsafePointer<Float>, frames: Int) throws(CaptureError) {
        hasWrittenAudio = true
        let written = sf_writef_float(handle, samples, sf_count_t(frames))
        framesWritten += Int64(max(0, written))
        guard written == frames else {
            if let code = direct?.errorNumber, code != 0 { throw SoundFile.writeFailure(path, errorNumber: code) }
            let code = errno
            let library = String(cString: sf_strerror(handle))
            let reason = code != 0 ? "\(String(cString: strerror(code))) (\(library))" : library
            throw .writeFailed(path: path, reason: reason)
        }
        if pageCacheWindow != nil { followPageCacheWindow() }
    }

    /// After a write: starts writeback of what the window says and drops what it says. A file
    /// these calls do not apply to (a pipe, a file system without writeback) stops trying: the
    /// audio is written either way.
    private func followPageCacheWindow() {
        let length = descriptor.map { lseek($0, 0, SEEK_CUR) } ?? -1
        guard let descriptor, length >= 0, let step = pageCacheWindow?.advance(to: Int64(length)) else {
            pageCacheWindow = nil
            return
        }
        if let range = step.startWriteback, !startWriteback(of: range, descriptor: descriptor) {
            pageCacheWindow = nil
            return
        }
        if let range = step.release { releaseFromPageCache(range, descriptor: descriptor) }
    }

    /// sync_file_range(SYNC_FILE_RANGE_WRITE): starts writing the range back, without waiting.
    private func startWriteback(of range: Range<Int64>, descriptor: Int32) -> Bool {
        jcap_sync_file_range(descriptor, range.lowerBound, Int64(range.count), jcap_sync_file_range_write) == 0
    }

    /// sync_file_range with SYNC_FILE_RANGE_WAIT_BEFORE | WRITE | WAIT_AFTER, then
    /// posix_fadvise(POSIX_FADV_DONTNEED): once the range is on the disk, its pages are freed.
    private func releaseFromPageCache(_ range: Range<Int64>, descriptor: Int32) {
        _ = jcap_sync_file_range(descriptor, range.lowerBound, Int64(range.count),
                                 jcap_sync_file_range_wait_before | jcap_sync_file_range_write | jcap_sync_file_range_wait_after)
        _ = posix_fadvise(descriptor, off_t(range.lowerBound), off_t(range.count), POSIX_FADV_DONTNEED)
    }

    /// Reads up to `frames` interleaved frames (sf_readf_float); returns how many it read.
    package func read(into samples: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        Int(sf_readf_float(handle, samples, sf_count_t(frames)))
    }

    /// Rewrites the header to describe everything written so far (SFC_UPDATE_HEADER_NOW), so the
    /// file is readable if the process dies.
    ///
    /// Not for Ogg: its header holds no length (a reader finds it from the pages, so a killed take
    /// stays readable up to its last page), and libsndfile 1.2.0 asked to rewrite an Ogg Vorbis
    /// header writes the Vorbis header packets into the stream again, leaving a file it cannot open.
    package func updateHeader() {
        guard format & Int32(SF_FORMAT_TYPEMASK) != Int32(SF_FORMAT_OGG) else { return }
        // Written around the page cache: the frames first, then the header.
        direct?.writeBeforeHeader()
        sf_command(handle, Int32(SFC_UPDATE_HEADER_NOW), nil, 0)
        direct?.commitHead()
    }

    /// Written around the page cache: the disk writer's turn at this file has ended, so the whole
    /// blocks written so far go to the disk and the file's buffer back to its queue's pool
    /// (`DirectFile.endTurn`); nothing otherwise.
    package func sendWrittenBlocks() { direct?.endTurn() }

    /// Written around the page cache: everything written so far sent to the disk, the last
    /// partial block too (`DirectFile.writeEverything`), before a commit of a header that
    /// declares frames; `waitForEverything` waits for it. Nothing otherwise.
    package func writeEverything() { direct?.writeEverything() }

    /// Written around the page cache: waits for what `writeEverything` sent. A failure shows at
    /// the next write.
    package func waitForEverything() { _ = direct?.waitForEverything() }

    /// Written around the page cache: waits for the writes on their way, so that a take's files,
    /// their last writes sent, are waited for together before each closes. Nothing otherwise.
    package func waitForWrites() { direct?.waitForWrites() }

    /// Bytes of one frame of the file's audio: its channels times its encoding's bytes a sample
    /// (4 for an encoding whose samples are not whole bytes).
    package var bytesPerFrame: Int {
        let sampleBytes = switch format & Int32(SF_FORMAT_SUBMASK) {
        case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8), Int32(SF_FORMAT_ULAW), Int32(SF_FORMAT_ALAW): 1
        case Int32(SF_FORMAT_PCM_16): 2
        case Int32(SF_FORMAT_PCM_24): 3
        case Int32(SF_FORMAT_DOUBLE): 8
        default: 4
        }
        return channels * sampleBytes
    }

    /// Whether the file is written around the page cache (O_DIRECT).
    package var isDirect: Bool { direct != nil }

    /// The queue its direct writes go through (shared by the files of its take).
    package var directQueue: DirectWriteQueue? { direct?.queue }

    /// Room for at most `frames` frames to be gathered in place, straight into the direct
    /// buffer they go to the disk from, and then given to `write(interleaved:frames:)` from
    /// there, which copies nothing (`DirectFile.appendRoom`). Nil where that would not hold: a
    /// file not written directly, or one whose encoding libsndfile converts floats into (any
    /// but 32-bit float in the host's byte order: it would write its converted copy over them).
    /// Empty where the buffer ends inside the next frame: that one frame goes to `write` from
    /// elsewhere, and the frames after it find room in the next buffer.
    package func inPlaceFrames(atMost frames: Int) -> UnsafeMutableBufferPointer<Float>? {
        guard let direct, writesFloatsUnchanged, frames > 0 else { return nil }
        let frameBytes = channels * MemoryLayout<Float>.stride
        guard let room = direct.appendRoom(atMost: frames * frameBytes) else { return nil }
        return UnsafeMutableBufferPointer(start: room.baseAddress!.assumingMemoryBound(to: Float.self),
                                          count: room.count / frameBytes * channels)
    }

    /// libsndfile hands the floats given to `write` on as they are: 32-bit float samples, in the
    /// host's byte order.
    private lazy var writesFloatsUnchanged: Bool =
        format & Int32(SF_FORMAT_SUBMASK) == Int32(SF_FORMAT_FLOAT)
            && sf_command(handle, Int32(SFC_RAW_DATA_NEEDS_ENDSWAP), nil, 0) == Int32(SF_FALSE)

    /// Writes everything on the file's file system to the disk, this file's header and length
    /// with it (syncfs: one call for every file of a take on that disk). Created files only.
    package func commitFileSystem() {
        guard let descriptor else { return }
        _ = jcap_sync_file_system(descriptor)
    }

    /// Finishes and closes the file (sf_close). Safe to call more than once.
    package func close() throws(CaptureError) {
        guard !closed else { return }
        closed = true
        let result = sf_close(handle)
        if let direct {
            let code = direct.finish()
            if code != 0 {
                // The file ends where the disk stopped taking it: its header is made to say so,
                // and the frames counted are the ones it holds.
                if let measured = try? TakeFileRepair.measureAndRepair(path: path) {
                    framesWritten = min(framesWritten, measured.frames)
                }
                throw SoundFile.writeFailure(path, errorNumber: code)
            }
        }
        guard result == 0 else {
            throw .writeFailed(path: path, reason: String(cString: sf_error_number(result)))
        }
    }
}
