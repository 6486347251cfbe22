import CLinux
import Foundation

/// A session folder's take log: `takes.jsonl`, one JSON object a line, only ever appended to.
///
/// Why append-only JSON lines: a record is on disk (written and fsynced) before the call returns,
/// so a take that has started is in the log even if its process is killed a moment later, and a
/// crash can at worst cut the last line short; nothing earlier is ever rewritten, so nothing
/// earlier can be damaged by a crash. One write(2) with O_APPEND a record keeps records whole
/// and in order even if two processes append (the kernel serialises O_APPEND writes to a file).
///
/// The records (`TakeLogRecord` has the merging rules in full):
/// - the recorder appends a start record (status `recording`, the files and tracks, start frame
///   and time) when a take starts, and an end record (its final status, length, losses, peaks)
///   when it ends;
/// - `setNote` appends `{"take":N,"note":"..."}`, `setMark` `{"take":N,"mark":"circled"}`,
///   `delete` and `discard` `{"take":N,"status":...}`;
/// - `recoverInterruptedTakes` appends an `interrupted` record with the lengths it measured.
/// Reading merges a take's records in order: a key a later record has replaces the value (arrays
/// whole), a key it lacks keeps the earlier value; `"note": null` clears the note, `"mark": null`
/// the mark.
///
/// A line cut short (see `TakeLogLines.isTorn`: a record's prefix whose brackets never close, or
/// a run of NUL bytes) is skipped, wherever it is: a later append starts on a new line, so the cut
/// line stays in the middle. Any other line that is not a record is an error naming the file and
/// line, because skipping it would silently lose a take.
///
/// Not for the real-time thread: every call does file I/O. One value may be shared between
/// threads: each call opens the log afresh, and the scan of the lines read so far that it keeps
/// (so that a read parses only the lines appended since, `TakeLogScan`) is behind a lock.
public final class TakeLog: Sendable {
    public static let fileName = "takes.jsonl"

    public let folder: String
    public var path: String { folder + "/" + Self.fileName }
    private let scan = Locked(TakeLogScan())

    /// Does not touch the folder: the log is created by the first append.
    public init(folder: String) {
        self.folder = folder
    }

    // MARK: Appending

    /// Appends one full entry (a take's start or end, or any correction). Its optional values that
    /// are nil are left out of the record, so they keep what earlier records said.
    ///
    /// An entry with status `recording` marks the take as recording in this process (recovery
    /// leaves it alone) until an entry with another status is appended for it, or the session
    /// lock is given up: take the lock before the first take.
    package func append(_ entry: TakeLogEntry) throws(TakeLogError) {
        if let reason = entry.invalidity() { throw .invalidEntry(take: entry.take, reason: reason) }
        try write(TakeLogRecord(entry), reservingRoomForEnd: entry.status == .recording)
        SessionRegistry.shared.setRecording(entry.take, in: SessionRegistry.Folder(path: folder), entry.status == .recording)
    }

    /// Sets the take's note; empty (or only white space) text removes it.
    public func setNote(take: Int, _ text: String) throws(TakeLogError) {
        _ = try entry(take)
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        try write(TakeLogRecord(take: take, note: .some(trimmed.isEmpty ? nil : text)))
    }

    /// Adds a marker to the take (also one recording now), after those it has: a record of all
    /// its markers, on disk before this returns.
    public func addMarker(take: Int, _ marker: TakeLogMarker) throws(TakeLogError) {
        let markers = try entry(take).markers + [marker]
        try write(TakeLogRecord(take: take, markers: markers))
    }

    /// Marks the take (circled, false start, no good); nil clears its mark.
    public func setMark(take: Int, _ mark: TakeMark?) throws(TakeLogError) {
        _ = try entry(take)
        try write(TakeLogRecord(take: take, mark: .some(mark)))
    }

    /// Removes the take's files (those that exist) and marks it `deleted`. The record stays in
    /// the log, so the number is never used again and the listing still says what was deleted.
    public func delete(take: Int) throws(TakeLogError) {
        try remove(take: take, status: .deleted)
    }

    /// The same as `delete`, marked `discarded`: the take thrown away straight after recording
    /// (the session's `d` key), which a listing tells apart from one deleted later.
    public func discard(take: Int) throws(TakeLogError) {
        try remove(take: take, status: .discarded)
    }

    /// The files go first and the record after: a crash in between leaves a take marked as it was
    /// with files missing (deleting it again finishes), never a take marked deleted whose audio is
    /// still there unaccounted for. Every file is checked before any is removed: a file outside
    /// the folder (by its path or through a symlink), or one that is another take's, stops the whole deletion with nothing removed.
    private func remove(take: Int, status: TakeStatus) throws(TakeLogError) {
        let all = try entries()
        guard let entry = all.first(where: { $0.take == take }) else { throw .noSuchTake(take) }
        var paths: [String] = []
        for file in entry.files {
            let relative = try containedPath(file.path, take: take)
            if let number = TakeNaming.takeNumber(of: Self.lastComponent(relative)), number != take {
                throw .fileOfAnotherTake(take: take, path: file.path, otherTake: number)
            }
            let key = Self.normalized(relative)
            if let other = all.first(where: { other in
                other.take != take && !other.status.isRemoved
                    && other.files.contains { Self.normalized($0.path) == key }
            }) {
                throw .fileOfAnotherTake(take: take, path: file.path, otherTake: other.take)
            }
            paths.append(folder + "/" + relative)
        }
        var directories: Set<String> = []
        for path in paths {
            if unlink(path) == 0 {
                directories.insert(Self.directory(of: path))
            } else if errno != ENOENT {
                throw .cannotRemove(path: path, reason: String(cString: strerror(errno)))
            }
        }
        // The removals made durable before the log says they happened.
        for directory in directories { Self.syncDirectory(directory) }
        try write(TakeLogRecord(take: take, status: status))
        SessionRegistry.shared.setRecording(take, in: SessionRegistry.Folder(path: folder), false)
    }

    /// The relative path of a take's file, or an error if it leads outside the session folder.
    func checkedPath(_ path: String, take: Int) throws(TakeLogError) -> String {
        let components = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        guard !path.hasPrefix("/"), !components.isEmpty, !components.contains(".."), !path.contains("\0") else {
            throw .fileOutsideFolder(take: take, path: path)
        }
        return components.joined(separator: "/")
    }

    /// `checkedPath`, and the file must also stay inside the session folder once symlinks are
    /// followed: a folder on its way that is a symlink must lead to a folder inside the session
    /// folder (realpath), and so must the file itself if it is one. A file that is not there
    /// passes (there is nothing to touch); a symlink that leads nowhere does not.
    func containedPath(_ path: String, take: Int) throws(TakeLogError) -> String {
        let relative = try checkedPath(path, take: take)
        let joined = folder + "/" + relative
        var info = stat()
        guard lstat(joined, &info) == 0 else { return relative }
        guard let root = Self.realPath(folder),
              let parent = Self.realPath(Self.directory(of: joined)), Self.isInside(parent, root: root, orEqual: true)
        else { throw .fileOutsideFolder(take: take, path: path) }
        if info.st_mode & S_IFMT == S_IFLNK {
            guard let target = Self.realPath(joined), Self.isInside(target, root: root, orEqual: false) else {
                throw .fileOutsideFolder(take: take, path: path)
            }
        }
        return relative
    }

    /// realpath(3): the path with every symlink, `.` and `..` resolved; nil when it cannot be.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func isInside(_ path: String, root: String, orEqual: Bool) -> Bool {
        (orEqual && path == root) || path.hasPrefix(root == "/" ? "/" : root + "/")
    }

    // MARK: Recovery

    /// Finds the takes whose process was killed (a `recording` record and no end record), measures
    /// their files, repairs the headers of WAV, RF64 and W64 files so every complete frame written
    /// is readable (`TakeFileRepair`), and appends an `interrupted` record for each: every file's
    /// frames (a missing file 0; other containers what libsndfile reads) and the take's length, the
    /// shortest file's (scaled to the take's rate if a file was resampled). Returns those entries.
    ///
    /// Only while this process holds the session lock (`sessionNotLocked` otherwise): the lock
    /// proves no other jcap is recording into the folder, so every `recording` take without an end
    /// is truly dead. Takes this process is recording itself (appended as `recording` and not
    /// ended) are left alone, and so are takes with a line the log cannot read (`read()`): it may
    /// be their end. Every file a take lists is checked to be inside the folder before any is
    /// touched, after symlinks too (`containedPath`). Audio is never truncated or rewritten, only
    /// header sizes, so running it again after a crash during recovery is safe. An interrupted
    /// take an earlier jcap logged with an unknown length (`isLoggedWithUnknownLength`) is
    /// measured again the same way.
    package func recoverInterruptedTakes() throws(TakeLogError) -> [TakeLogEntry] {
        guard SessionLock.isHeld(folder: folder) else { throw .sessionNotLocked(folder: folder) }
        let identity = SessionRegistry.Folder(path: folder)
        var recovered: [TakeLogEntry] = []
        let reading = try read()
        let unsure = reading.takesWithSkippedLines
        for var entry in reading.entries
        where (entry.status == .recording && !SessionRegistry.shared.isRecording(entry.take, in: identity)
               || Self.isLoggedWithUnknownLength(entry)) && !unsure.contains(entry.take) {
            var relatives: [String] = []
            for file in entry.files { relatives.append(try containedPath(file.path, take: entry.take)) }
            var shortest: Int64?
            for (index, relative) in relatives.enumerated() {
                let measured = try TakeFileRepair.measureAndRepair(path: folder + "/" + relative)
                entry.files[index].frames = measured.frames
                let takeFrames = Self.scale(measured.frames, from: measured.sampleRate, to: entry.sampleRate)
                shortest = min(shortest ?? takeFrames, takeFrames)
            }
            if let shortest { entry.frames = shortest }
            entry.status = .interrupted
            try append(entry)
            recovered.append(entry)
        }
        return recovered
    }

    /// An interrupted take logged by an earlier jcap with libsndfile's unknown length
    /// (SF_COUNT_MAX, a killed FLAC file's) as its frames: measured again, the log corrected.
    static func isLoggedWithUnknownLength(_ entry: TakeLogEntry) -> Bool {
        entry.status == .interrupted
            && (SoundFile.isUnknownLength(entry.frames) || entry.files.contains { $0.frames.map(SoundFile.isUnknownLength) ?? false })
    }

    /// `frames` at `fileRate` counted at `takeRate` (rounded down); unchanged when either rate is
    /// unknown or they are equal.
    static func scale(_ frames: Int64, from fileRate: Int?, to takeRate: Int) -> Int64 {
        guard let fileRate, fileRate > 0, takeRate > 0, fileRate != takeRate, frames > 0 else { return frames }
        if frames <= Int64.max / Int64(takeRate) { return frames * Int64(takeRate) / Int64(fileRate) }
        // Only a log with an absurd rate gets here; clamped rather than trapping.
        let scaled = Double(frames) * Double(takeRate) / Double(fileRate)
        return scaled < 9.2e18 ? Int64(scaled) : Int64.max
    }

    // MARK: Reading

    /// Every take in the log, its records merged, by take number ascending; the first line that
    /// is not a record (and not a torn write) is an error naming it. Deleting reads this way: a
    /// take whose record cannot be read might share a file with the take being deleted.
    public func entries() throws(TakeLogError) -> [TakeLogEntry] {
        let reading = try read()
        if let error = reading.firstError { throw error }
        return reading.entries
    }

    /// Every take that can be read, and the lines that cannot (`TakeLogReading.skipped`): one bad
    /// line never hides the rest of the log. A record with a status this jcap does not know keeps
    /// its other keys, unless it is the take's first record (a take needs a status): then it is
    /// skipped, as a line that is not a record is. Only a log that cannot be read at all throws.
    public func read() throws(TakeLogError) -> TakeLogReading {
        guard let (scan, bytes) = try scanned() else { return TakeLogReading(path: path, entries: [], skipped: []) }
        return scan.finished(with: bytes, log: self).reading(path: path)
    }

    /// The take's merged entry, or `noSuchTake`; lines that cannot be read are passed over (`read()`).
    public func entry(_ take: Int) throws(TakeLogError) -> TakeLogEntry {
        guard let entry = try read().entries.first(where: { $0.take == take }) else { throw .noSuchTake(take) }
        return entry
    }

    /// The number for the next take: one past the highest found in the log's records (torn and
    /// damaged lines included, by the number they start with), in the names of the files the log
    /// lists, and in the names in the session folder and in every folder the log's files are in.
    /// So a number is never used twice: not after a deletion (the record stays), not after the
    /// log lost a record (the files are still there), not after files were moved out by hand (the
    /// log still names them) or copied in (their names count).
    public func nextTakeNumber() -> Int {
        var highest = 0
        var directories: Set<String> = [folder]
        if let (scan, bytes) = try? scanned() {
            let finished = scan.finished(with: bytes, log: self)
            highest = finished.highestTake
            directories.formUnion(finished.fileDirectories)
        }
        for directory in directories {
            for name in TakeNaming.fileNames(inDirectory: directory) {
                if let number = TakeNaming.takeNumber(of: name) { highest = max(highest, number) }
            }
        }
        return highest < Int.max ? highest + 1 : Int.max
    }

    /// The log's bytes (nil when there is no log yet) and the scan of its complete lines, the
    /// last scan carried on to them (`TakeLogScan` says why).
    private func scanned() throws(TakeLogError) -> (scan: TakeLogScan, contents: [UInt8])? {
        try scan.withLock { (scan: inout TakeLogScan) throws(TakeLogError) -> (scan: TakeLogScan, contents: [UInt8])? in
            guard let bytes = try contents() else { return nil }
            scan.advance(to: bytes, log: self)
            return (scan, bytes)
        }
    }

    /// The log's bytes, or nil when there is no log yet.
    func contents() throws(TakeLogError) -> [UInt8]? {
        // Non-blocking and regular files only: a FIFO in the log's place must not hold jcap.
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .cannotReadLog(path: path, reason: String(cString: strerror(errno)))
        }
        defer { Glibc.close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .cannotReadLog(path: path, reason: "not a regular file")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .cannotReadLog(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    // MARK: Writing

    /// Refuses a log that exists but cannot be appended to (read-only, immutable, not a regular
    /// file), naming it: checked when a session opens and before each take creates its files, so
    /// a take never starts whose start record cannot be written (its files would be orphans).
    /// A log not made yet passes: the session folder's own checks cover creating it.
    package func checkWritable() throws(TakeLogError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw .cannotWriteLog(path: path, reason: String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .cannotWriteLog(path: path, reason: "not a regular file") }
        let descriptor = Glibc.open(path, O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotWriteLog(path: path, reason: String(cString: strerror(errno))) }
        Glibc.close(descriptor)
    }

    /// Appends the record as one line: one write(2) on a descriptor opened with O_APPEND, then
    /// fsync. A log that did not exist is created and its folder fsynced too, so the new file's
    /// name is as durable as its first record. If the log ends in a line cut short, the record is
    /// written after a newline in the same write, so it never joins the cut line.
    ///
    /// With `reservingRoomForEnd` (a take's start), room for the take's end record is allocated
    /// past the log's end (fallocate, keeping its size): a disk that another process fills during
    /// the take still takes the line that says how the take ended, however many tracks it has.
    private func write(_ record: TakeLogRecord, reservingRoomForEnd: Bool = false) throws(TakeLogError) {
        var line = record.encoded()
        line.append(UInt8(ascii: "\n"))
        var created = false
        var descriptor = Glibc.open(path, O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT {
            descriptor = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if descriptor >= 0 {
                created = true
            } else if errno == EEXIST {
                descriptor = Glibc.open(path, O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC)
            }
        }
        guard descriptor >= 0 else { throw .cannotWriteLog(path: path, reason: String(cString: strerror(errno))) }
        defer { Glibc.close(descriptor) }
        if !created, Self.endsWithoutNewline(path) { line.insert(UInt8(ascii: "\n"), at: 0) }
        var written = 0
        while written < line.count {
            let count = line[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .cannotWriteLog(path: path, reason: String(cString: strerror(errno)))
            }
            // A short write (a full disk) leaves a torn line, which readers skip; the rest is
            // tried once more so a disk with a little room left still gets the whole record.
            written += count
        }
        guard fsync(descriptor) == 0 else {
            throw .cannotWriteLog(path: path, reason: String(cString: strerror(errno)))
        }
        if created { Self.syncDirectory(folder) }
        if reservingRoomForEnd { Self.reserveRoom(descriptor, bytes: 2 * line.count + 4_096) }
    }

    /// Allocates `bytes` past the end of the file without changing its size, so later appends
    /// need no new blocks. A file system that cannot (or a disk already too full) is left as it
    /// is: the append then simply needs its room when it comes.
    private static func reserveRoom(_ descriptor: Int32, bytes: Int) {
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0 else { return }
        _ = jcap_allocate_keeping_size(descriptor, Int64(end), Int64(bytes))
    }

    /// True when the file is not empty and its last byte is not a newline: the last append was
    /// cut short.
    private static func endsWithoutNewline(_ path: String) -> Bool {
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { Glibc.close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size > 0 else { return false }
        var last: UInt8 = 0
        guard pread(descriptor, &last, 1, off_t(info.st_size - 1)) == 1 else { return false }
        return last != UInt8(ascii: "\n")
    }

    /// fsync on a folder, which makes the names created or removed in it durable.
    static func syncDirectory(_ directory: String) {
        let descriptor = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        Glibc.close(descriptor)
    }

    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// A relative path with empty and `.` components dropped, so two spellings of one file match.
    static func normalized(_ path: String) -> String {
        path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }
}
