import CSndfile
import Glibc

extension SoundFile {
    /// Moves the read position to `frame` (sf_seek, SEEK_SET). Returns false when libsndfile
    /// refuses (a frame past the end, or a format that cannot seek).
    package func seek(toFrame frame: Int64) -> Bool {
        sf_seek(handle, sf_count_t(frame), SEEK_SET) == sf_count_t(frame)
    }

    /// Whether a length libsndfile reported is no length: SF_COUNT_MAX (a FLAC file whose
    /// STREAMINFO was never finished, or a stream) or below zero.
    package static func isUnknownLength(_ frames: Int64) -> Bool {
        frames < 0 || frames == Int64.max  // SF_COUNT_MAX
    }

    /// The frames libsndfile decodes from the read position to the end (or to the first frame it
    /// cannot decode): a file's real length when its header gives none.
    package func countFramesByReading() -> Int64 {
        let chunk = 8_192
        var buffer = [Float](repeating: 0, count: chunk * max(1, channels))
        var total: Int64 = 0
        while true {
            let decoded = buffer.withUnsafeMutableBufferPointer { self.read(into: $0.baseAddress!, frames: chunk) }
            guard decoded > 0 else { return total }
            total += Int64(decoded)
        }
    }

    /// Whether the last read failed rather than reached the end (sf_error).
    package var hasReadError: Bool { sf_error(handle) != 0 }

    /// libsndfile's message for the last error on the file (sf_strerror).
    package var errorMessage: String { String(cString: sf_strerror(handle)) }

    /// Opens a file to play: one that is missing, unreadable or not a regular file is
    /// `.unreadableFile` (strerror's reason), one libsndfile cannot decode `.unreadableFormat`.
    package static func open(playing path: String) throws(PlayerError) -> SoundFile {
        // Non-blocking, so a FIFO cannot hold the open forever before it is refused.
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .unreadableFile(path, reason: String(cString: strerror(errno)))
        }
        var status = stat()
        let statted = fstat(descriptor, &status) == 0
        Glibc.close(descriptor)
        guard statted, status.st_mode & S_IFMT == S_IFREG else {
            throw .unreadableFile(path, reason: "not a regular file")
        }
        do {
            return try SoundFile.open(readingFrom: path)
        } catch {
            if case .outputUnwritable(_, let reason) = error { throw .unreadableFormat(path, reason: reason) }
            throw .unreadableFormat(path, reason: "\(error)")
        }
    }
}
