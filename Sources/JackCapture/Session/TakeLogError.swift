/// What can go wrong with a session's take log, its lock and its takes' files, each with a
/// one-line description naming the file, line or take concerned.
public enum TakeLogError: Error, Equatable, Sendable {
    /// A line of the log that is not a record (and not a torn last write, which is skipped).
    case unreadableLog(path: String, line: Int, reason: String)
    /// The log exists but cannot be read (permissions, I/O error).
    case cannotReadLog(path: String, reason: String)
    /// Appending to the log failed (a full disk, permissions, a missing session folder).
    case cannotWriteLog(path: String, reason: String)
    /// An entry that cannot be written as it is (a take below 1, a negative length).
    case invalidEntry(take: Int, reason: String)
    /// No record of this take in the log.
    case noSuchTake(Int)
    /// A take's file could not be removed; the files before it in the take's list are gone, the
    /// take is not yet marked deleted, and deleting it again finishes the job.
    case cannotRemove(path: String, reason: String)
    /// The log names a file outside the session folder for a take (an absolute path or `..`):
    /// nothing outside the folder is ever removed or repaired.
    case fileOutsideFolder(take: Int, path: String)
    /// The log names a file for a take that another take (not deleted) also names, or whose name
    /// carries another take's number: removing it would remove another take's audio.
    case fileOfAnotherTake(take: Int, path: String, otherTake: Int)
    /// A take's file exists but its header could not be repaired (an I/O error).
    case cannotRepair(path: String, reason: String)
    /// Another jcap process has the session folder open.
    case sessionInUse(folder: String, pid: Int32?)
    /// The session folder's lock file is a symbolic link: jcap never follows it (it would
    /// truncate whatever it points to).
    case lockIsSymlink(path: String)
    /// The session lock could not be taken for another reason than its being held.
    case cannotLock(folder: String, reason: String)
    /// Recovery was asked for without this process holding the session lock: a take that looks
    /// interrupted might still be recording in another process.
    case sessionNotLocked(folder: String)
}

extension TakeLogError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unreadableLog(let path, let line, let reason):
            return "cannot read the take log \(path), line \(line): \(reason)"
        case .cannotReadLog(let path, let reason):
            return "cannot read the take log \(path): \(reason)"
        case .cannotWriteLog(let path, let reason):
            return "cannot write to the take log \(path): \(reason)"
        case .invalidEntry(let take, let reason):
            return "cannot log take \(take): \(reason)"
        case .noSuchTake(let take):
            return "no take \(take) in the take log"
        case .cannotRemove(let path, let reason):
            return "cannot remove \(path): \(reason)"
        case .fileOutsideFolder(let take, let path):
            return "take \(take) lists a file outside the session folder (\(path)); it is left alone"
        case .fileOfAnotherTake(let take, let path, let otherTake):
            return "take \(take) lists \(path), which belongs to take \(otherTake); nothing was removed"
        case .cannotRepair(let path, let reason):
            return "cannot repair \(path): \(reason)"
        case .sessionInUse(let folder, let pid):
            if let pid { return "session folder \(folder) is in use by jcap (PID \(pid))" }
            return "session folder \(folder) is in use by another jcap process"
        case .lockIsSymlink(let path):
            return "the session lock \(path) is a symbolic link; jcap does not follow it (remove it)"
        case .cannotLock(let folder, let reason):
            return "cannot lock session folder \(folder): \(reason)"
        case .sessionNotLocked(let folder):
            return "interrupted takes in \(folder) can only be recovered while holding its session lock"
        }
    }
}
