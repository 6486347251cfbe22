import Foundation

/// An ext4 file system in an image file, mounted through a loop device (the tests run as root,
/// here and in CI), for what a tmpfs cannot do: go read-only with files open for writing, or
/// tell unwritten space from data (so files written around the page cache allocate ahead).
final class LoopDisk {
    let device: String
    let mountPoint: String
    private(set) var isMounted = false

    /// Makes a `megabytes` MiB ext4 file system in `image` and mounts it at `mountPoint` (made if
    /// missing) with `options` (mount(8)'s, e.g. ["-o", "errors=remount-ro"]).
    init(image: String, megabytes: Int, mountPoint: String, options: [String] = []) throws {
        try Self.run("/usr/bin/truncate", ["-s", "\(megabytes)M", image])
        try Self.run("/sbin/mkfs.ext4", ["-q", "-F", image])
        device = try Self.run("/sbin/losetup", ["--find", "--show", image]).trimmingCharacters(in: .whitespacesAndNewlines)
        self.mountPoint = mountPoint
        do {
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
            try mount(options: options)
        } catch {
            _ = try? Self.run("/sbin/losetup", ["-d", device])
            throw error
        }
    }

    func mount(options: [String] = []) throws {
        try Self.run("/bin/mount", options + [device, mountPoint])
        isMounted = true
    }

    func unmount() throws {
        try Self.run("/bin/umount", [mountPoint])
        isMounted = false
    }

    /// Unmounts it (when mounted) and lets the loop device go, whatever fails: a test's teardown.
    func remove() {
        if isMounted { try? unmount() }
        _ = try? Self.run("/sbin/losetup", ["-d", device])
    }

    /// Free bytes for an unprivileged writer (statvfs's f_bavail).
    func freeBytes() throws -> Int64 {
        var info = statvfs()
        guard statvfs(mountPoint, &info) == 0 else { throw TestFailure("statvfs \(mountPoint) failed") }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Runs a system program to the end; returns its standard output.
    @discardableResult
    static func run(_ program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("\(program) \(arguments.joined(separator: " ")) failed with status \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
