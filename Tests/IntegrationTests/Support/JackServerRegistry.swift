import Foundation

/// JACK 2's registry of running servers (`/dev/shm/jack-shm-registry`): eight entries, each a PID
/// and a name. A server killed with SIGKILL (or that crashed: a NetJACK2 slave whose master went
/// away) leaves its entry behind, and JACK reclaims an entry only when a server of the same name
/// starts again. The tests' servers have unique names, so such entries would pile up until
/// "Too many servers already active" refused every server after them. `freeDeadEntries` empties
/// the entries whose PID no longer exists, as JACK itself does for a name it meets again.
enum JackServerRegistry {
    static let path = "/dev/shm/jack-shm-registry"
    /// The header (magic, type, size, header and entry lengths, padded), then the entries.
    static let firstEntry = 24
    /// A PID and a name of up to 256 bytes with its NUL, padded to 8 bytes.
    static let entryLength = 264
    static let servers = 8
    static let magic: UInt32 = 0x4A41_434B

    /// Empties the entries of servers that are gone; their names.
    @discardableResult
    static func freeDeadEntries() -> [String] {
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        let length = firstEntry + servers * entryLength
        guard let mapping = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), mapping != MAP_FAILED else { return [] }
        defer { munmap(mapping, length) }
        guard mapping.load(as: UInt32.self) == magic else { return [] }
        var freed: [String] = []
        for index in 0..<servers {
            let entry = mapping + firstEntry + index * entryLength
            let pid = entry.load(as: Int32.self)
            guard pid > 0, kill(pid, 0) != 0, errno == ESRCH else { continue }
            freed.append(String(cString: (entry + 4).assumingMemoryBound(to: CChar.self)))
            memset(entry, 0, entryLength)
        }
        return freed
    }
}
