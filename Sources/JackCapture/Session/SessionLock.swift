import Foundation

/// The lock that makes one jcap process at a time the owner of a session folder: an exclusive
/// flock(2) on `<folder>/.jcap.lock`, which holds the owner's PID for the refusal message.
///
/// Why flock: the kernel drops it when the process dies however it dies (kill -9 included), so a
/// crash never leaves a stale lock to clean up by hand; the file's PID is only for the message.
/// The lock belongs to the open file description, so a second `SessionLock` in the same process
/// is refused too. The descriptor is opened close-on-exec, so no child process inherits the
/// lock and keeps the folder locked after jcap exits. The file is never removed: removing it
/// while another process waits on the old inode would let two processes lock two different
/// files of the same name.
package final class SessionLock: Sendable {
    package static let fileName = ".jcap.lock"

    package let folder: String
    package var path: String { folder + "/" + Self.fileName }
    /// The lock file's descriptor, -1 once released.
    private let descriptor: Locked<Int32>
    private let identity: SessionRegistry.Folder

    /// Takes the lock, or refuses with `sessionInUse` naming the owner's PID.
    package init(folder: String) throws(TakeLogError) {
        self.folder = folder
        let path = folder + "/" + Self.fileName
        // O_NOFOLLOW: a lock file that is a symlink would have its target truncated below.
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            if errno == ELOOP { throw .lockIsSymlink(path: path) }
            throw .cannotLock(folder: folder, reason: String(cString: strerror(errno)))
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let owner = code == EWOULDBLOCK ? Self.ownerPID(descriptor) : nil
            Glibc.close(descriptor)
            if code == EWOULDBLOCK { throw .sessionInUse(folder: folder, pid: owner) }
            throw .cannotLock(folder: folder, reason: String(cString: strerror(code)))
        }
        // The PID only names the owner in a refusal; failing to write it does not weaken the lock.
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 {
            _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        self.descriptor = Locked(descriptor)
        identity = SessionRegistry.Folder(path: folder)
        SessionRegistry.shared.locked(identity)
    }

    deinit { release() }

    /// Gives the folder up (closing the descriptor drops the flock). Safe to call more than once.
    package func release() {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            SessionRegistry.shared.unlocked(identity)
            // Emptied first so a stale PID never names a process that no longer has the folder.
            _ = ftruncate(descriptor, 0)
            Glibc.close(descriptor)
            descriptor = -1
        }
    }

    /// True while this process holds the lock on `folder` (through any `SessionLock`).
    package static func isHeld(folder: String) -> Bool {
        SessionRegistry.shared.isLocked(SessionRegistry.Folder(path: folder))
    }

    /// The PID the holder wrote, if it has written one yet.
    private static func ownerPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self)
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// What this process knows about the session folders it has open: which it holds the lock on,
/// and which takes it is recording now (started, not ended), so that recovery never mistakes a
/// take in progress in this very process for one whose process was killed. A live take only
/// counts while the folder is locked (recovery needs the lock anyway): taking or giving up the
/// lock forgets the folder's live takes.
///
/// Folders are told apart by device and inode, so two spellings of one folder are one folder.
final class SessionRegistry: Sendable {
    static let shared = SessionRegistry()

    struct Folder: Hashable {
        var device: UInt64
        var inode: UInt64
        var path: String

        init(path: String) {
            var info = stat()
            if stat(path, &info) == 0 {
                device = UInt64(info.st_dev)
                inode = UInt64(info.st_ino)
                self.path = ""
            } else {
                device = 0
                inode = 0
                self.path = path
            }
        }
    }

    private let state = Locked(State())

    private struct State {
        var lockedFolders: [Folder: Int] = [:]
        var liveTakes: Set<LiveTake> = []
    }

    private struct LiveTake: Hashable {
        var folder: Folder
        var take: Int
    }

    /// A folder newly locked has no live takes yet: any left from before belong to an earlier
    /// tenure (a recorder that never logged its take's end, or another folder that had the same
    /// inode before it was removed), and must not hide a dead take from recovery.
    func locked(_ folder: Folder) {
        state.withLock { state in
            if state.lockedFolders[folder] == nil { state.liveTakes = state.liveTakes.filter { $0.folder != folder } }
            state.lockedFolders[folder, default: 0] += 1
        }
    }

    func unlocked(_ folder: Folder) {
        state.withLock { state in
            let count = (state.lockedFolders[folder] ?? 1) - 1
            state.lockedFolders[folder] = count > 0 ? count : nil
            if count <= 0 { state.liveTakes = state.liveTakes.filter { $0.folder != folder } }
        }
    }

    func isLocked(_ folder: Folder) -> Bool { state.withLock { $0.lockedFolders[folder] != nil } }

    func setRecording(_ take: Int, in folder: Folder, _ recording: Bool) {
        state.withLock { state in
            let key = LiveTake(folder: folder, take: take)
            if recording { state.liveTakes.insert(key) } else { state.liveTakes.remove(key) }
        }
    }

    func isRecording(_ take: Int, in folder: Folder) -> Bool {
        state.withLock { $0.liveTakes.contains(LiveTake(folder: folder, take: take)) }
    }
}
