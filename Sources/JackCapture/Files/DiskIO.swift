/// How a take's files are written: around the page cache (O_DIRECT, `DirectFile`) or through it.
public enum DiskIO: String, CaseIterable, Equatable, Sendable {
    /// Around the page cache wherever the file system and the format allow, else through it,
    /// with one line saying so.
    case auto
    /// Around the page cache, or not at all: a file system that refuses O_DIRECT, or a
    /// compressed format, is an error.
    case direct
    /// Through the page cache (write(2)), its footprint kept small (`PageCacheWindow`).
    case buffered
}

/// Files a take writes through the page cache though `auto` asked for around it: how many, in
/// which folder, and why (the file system refuses O_DIRECT, or the encoding is compressed).
public struct DiskIOFallback: Equatable, Sendable {
    public var folder: String
    public var reason: String
    public var files: Int

    /// One for each folder and reason among `files`, in the files' order.
    static func of(_ files: [SoundFile]) -> [DiskIOFallback] {
        var fallbacks: [DiskIOFallback] = []
        for file in files {
            guard let reason = file.directRefusal else { continue }
            let folder = TakeLog.directory(of: file.path)
            if let index = fallbacks.firstIndex(where: { $0.folder == folder && $0.reason == reason }) {
                fallbacks[index].files += 1
            } else {
                fallbacks.append(DiskIOFallback(folder: folder, reason: reason, files: 1))
            }
        }
        return fallbacks
    }
}
