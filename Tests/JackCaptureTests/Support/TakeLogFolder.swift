import Foundation
@testable import JackCapture

/// A fresh session folder under the temporary directory, removed when the test's suite instance
/// goes away.
final class TakeLogFolder {
    let path: String

    init(_ name: String = "session") throws {
        path = NSTemporaryDirectory() + "jcap-\(name)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var log: TakeLog { TakeLog(folder: path) }
    var logPath: String { path + "/" + TakeLog.fileName }

    func file(_ name: String) -> String { path + "/" + name }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

    func touch(_ name: String, _ text: String = "audio") throws {
        let target = file(name)
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: target))
    }

    /// The log's bytes as text.
    func logText() throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: logPath)), as: UTF8.self)
    }

    /// Appends raw bytes to the log, as another process (or a killed one) would have left them:
    /// not through `TakeLog`, so this process does not count the take as its own live take.
    func appendRaw(_ text: String) throws {
        let handle: FileHandle
        if let existing = FileHandle(forWritingAtPath: logPath) {
            handle = existing
        } else {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            handle = try takeLogRequire(FileHandle(forWritingAtPath: logPath), "the log")
        }
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    /// A start record for `entry` as a killed recorder would have left it.
    func appendStartRecordOfKilledProcess(_ entry: TakeLogEntry) throws {
        let line = String(decoding: TakeLogRecord(entry).encoded(), as: UTF8.self)
        try appendRaw(line + "\n")
    }
}

/// `#require` for a non-test context: throws instead of recording an issue.
func takeLogRequire<T>(_ value: T?, _ what: String = "value") throws -> T {
    guard let value else { throw TakeLogRequireFailure(what: what) }
    return value
}

struct TakeLogRequireFailure: Error, CustomStringConvertible {
    var what: String
    var description: String { "missing \(what)" }
}
