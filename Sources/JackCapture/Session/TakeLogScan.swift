import Foundation

/// What a take log's lines said, line by line in order: the takes (their records merged), the
/// lines that could not be used, and what the next take number must be past.
///
/// Why it is kept: a session reads its log at every take's start and end, and each record of a
/// take of many tracks lists every file (a 1024-track take logs 320 KB). Parsing the whole log
/// each time made a take's start and end cost more the longer the day went on: with 100 takes of
/// 1024 tracks logged, a one-second take cost 9 s of CPU, most of it parsing JSON (BENCHMARKS.md).
/// `TakeLog` keeps the scan of the log's complete lines and, at the next read, parses only the
/// lines after them, once it has checked that the log still begins with exactly the bytes
/// scanned; when it does not (edited, replaced, cut short), the log is scanned again from its
/// first line. The check keeps the bytes in memory: 30 MB after 100 takes of 1024 tracks.
struct TakeLogScan: Sendable {
    /// The bytes scanned: the log's complete lines, up to and including its last newline.
    private var bytes: [UInt8] = []
    /// Lines scanned, blank ones included, so that the next line's number is one past it.
    private var lineCount = 0
    private var merged: [Int: TakeLogEntry] = [:]
    private var skipped: [TakeLogReading.SkippedLine] = []
    /// The highest take number a line names: a record's take and its files' take numbers, or the
    /// number a line that is not a record starts with.
    private(set) var highestTake = 0
    /// The folders the logged files are in (inside the session folder), for their file names.
    private(set) var fileDirectories: Set<String> = []

    /// Goes on to the complete lines of `contents` after those scanned, when `contents` begins
    /// with the bytes scanned; scans it again from its first line otherwise. A last line without
    /// its newline (an append under way, or cut short) is left out: `finished` reads it.
    mutating func advance(to contents: [UInt8], log: TakeLog) {
        if !Self.begins(contents, with: bytes) { self = TakeLogScan() }
        let end = (contents.lastIndex(of: UInt8(ascii: "\n")) ?? -1) + 1
        var start = bytes.count
        while start < end {
            let lineEnd = contents[start..<end].firstIndex(of: UInt8(ascii: "\n")) ?? end
            lineCount += 1
            add(contents[start..<lineEnd], number: lineCount, terminated: true, log: log)
            start = lineEnd + 1
        }
        if end > bytes.count { bytes.append(contentsOf: contents[bytes.count..<end]) }
    }

    /// This scan with the line after its last newline in `contents`, when there is one.
    func finished(with contents: [UInt8], log: TakeLog) -> TakeLogScan {
        guard contents.count > bytes.count else { return self }
        var scan = self
        scan.add(contents[bytes.count...], number: lineCount + 1, terminated: false, log: log)
        return scan
    }

    /// What the lines say of the takes, by take number ascending.
    func reading(path: String) -> TakeLogReading {
        TakeLogReading(path: path, entries: merged.values.sorted { $0.take < $1.take }, skipped: skipped)
    }

    /// Whether `contents` starts with `prefix` (memcmp: a day's log of many tracks is megabytes).
    private static func begins(_ contents: [UInt8], with prefix: [UInt8]) -> Bool {
        guard contents.count >= prefix.count else { return false }
        guard !prefix.isEmpty else { return true }
        return contents.withUnsafeBytes { whole in
            prefix.withUnsafeBytes { start in memcmp(whole.baseAddress!, start.baseAddress!, start.count) == 0 }
        }
    }

    /// One line (`TakeLog.read` has the rules). A line without its newline may be an append still
    /// under way: one that is not a record is passed over, not reported.
    private mutating func add(_ line: ArraySlice<UInt8>, number: Int, terminated: Bool, log: TakeLog) {
        guard !line.allSatisfy(TakeLogLines.isSpace) else { return }
        let record: TakeLogRecord
        do {
            record = try JSONDecoder().decode(TakeLogRecord.self, from: Data(line))
        } catch {
            if let take = TakeLogLines.leadingTakeNumber(line) { highestTake = max(highestTake, take) }
            if TakeLogLines.isTorn(line) || !terminated { return }
            skipped.append(.init(line: number, take: TakeLogLines.leadingTakeNumber(line),
                                 reason: TakeLogLines.describe(error), keptOtherKeys: false))
            return
        }
        highestTake = max(highestTake, record.take)
        for file in record.files ?? [] {
            if let take = TakeNaming.takeNumber(of: TakeLog.lastComponent(file.path)) { highestTake = max(highestTake, take) }
            if let relative = try? log.checkedPath(file.path, take: record.take) {
                fileDirectories.insert(TakeLog.directory(of: log.folder + "/" + relative))
            }
        }
        if let unknown = record.unknownStatus {
            let statuses = TakeStatus.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            let reason = "unknown status \"\(unknown)\" (use \(statuses))"
            let keeps = merged[record.take] != nil
            skipped.append(.init(line: number, take: record.take, reason: reason, keptOtherKeys: keeps))
            if !keeps { return }
        } else if merged[record.take] == nil, record.status == nil {
            skipped.append(.init(line: number, take: record.take, reason: "the first record of take \(record.take) has no status",
                                 keptOtherKeys: false))
            return
        }
        merged[record.take] = record.merged(into: merged[record.take], status: .recording)
    }
}
