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

    public var description: String { rawValue }

    /// The names `--io` and the session key `io` take.
    public static let namesList = allCases.map(\.rawValue).joined(separator: ", ")
}
