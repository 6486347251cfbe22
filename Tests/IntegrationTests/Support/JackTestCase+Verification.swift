import Foundation
import XCTest
@testable import JackCapture
import JackCaptureTestSignal
import jcap

/// Checking a take against what jcap reported of it (`TakeVerification`) rather than waiting for a
/// quiet server: every sample must be the test signal at its true position, or silence in a
/// reported lost span, or inside a reported late or uncertain period, and every reported lost
/// span must be silent. A take jcap reported nothing of is held to "every sample in place".
extension JackTestCase {
    /// jcap's `--meter json` summary line (the last one in `output`) as an account, file paths
    /// inside the test's directory; `signalChannel` as `TakeAccount(meterSummaryLine:)` takes it.
    /// `errors`, jcap's standard error, goes into the failure when there is no summary line.
    func summaryAccount(_ output: String, errors: String = "", signalChannel: (String) -> Int? = TakeAccount.signalChannel(ofPort:),
                        file: StaticString = #filePath, line: UInt = #line) throws -> TakeAccount {
        let last = try XCTUnwrap(output.split(separator: "\n").last { $0.hasPrefix("{\"summary\"") },
                                 "no summary line in: \(output.suffix(2_000)); standard error: \(errors.suffix(2_000))",
                                 file: file, line: line)
        var account = try XCTUnwrap(TakeAccount(meterSummaryLine: last, signalChannel: signalChannel), String(last), file: file, line: line)
        account.files = account.files.map { var each = $0; each.path = each.path.hasPrefix("/") ? each.path : path(each.path); return each }
        return account
    }

    /// Whether jcap `process` (ended) missed its start: not ready by the time it was told, as on a
    /// loaded host. It says so in its summary ("missed start") when the take was armed in time,
    /// or refuses the time as passed before arming; exit status 13 either way, and no file.
    func missedTheStart(_ process: Subprocess) throws -> Bool {
        guard try process.wait() == ExitStatus.startInPast.rawValue else { return false }
        return process.output.contains("\"outcome\":\"missed start\"") || process.errorOutput.contains("has already passed")
    }

    /// Runs jcap to the end with `--meter json`: its status, standard error and the account its
    /// summary line gives (nil when it printed none, as when it refused to start).
    func runJcapReporting(_ arguments: [String], timeout: TimeInterval = 60) throws
        -> (status: Int32, errors: String, account: TakeAccount?) {
        let jcap = try launchJcap(arguments + ["--meter", "json"])
        let status = try jcap.wait(timeout: timeout)
        return (status, jcap.errorOutput, try? summaryAccount(jcap.output))
    }

    /// The account of take `take` in the session folder's take log.
    func takeLogAccount(folder: String, take: Int, file: StaticString = #filePath, line: UInt = #line) throws -> TakeAccount {
        let entries = try TakeLog(folder: folder).entries()
        let entry = try XCTUnwrap(entries.first { $0.take == take }, "take \(take) not in the log", file: file, line: line)
        return try XCTUnwrap(TakeAccount(entry, folder: folder), "take \(take): \(entry)", file: file, line: line)
    }

    /// Fails unless every sample of the take's files is accounted for by what jcap reported.
    @discardableResult
    func assertAccountedFor(_ account: TakeAccount, _ message: String = "", file: StaticString = #filePath,
                            line: UInt = #line) -> TakeVerification {
        let verification = TakeVerification.verify(account)
        // A fault next to a jump of the test-signal client's own clock may be the signal's: said
        // with the failure, so it is told apart, never hidden.
        XCTAssertTrue(verification.isAccountedFor, "\(message) \(verification); \(signalClockJumps())", file: file, line: line)
        if !account.reportsNoTrouble { print("note: \(name): jcap reported trouble, checked against it: \(verification)") }
        return verification
    }

    /// What a jcap killed with `-v` said of its take before it died, which leaves no summary: each
    /// xrun as it came ("xrun near JACK frame F (take frame P)"). Around each, from 2 periods
    /// before to 6 after, anything may be in the file: the frames JACK skipped, written as silence,
    /// and a period copied late (measured up to 4,096 frames after the line's frame).
    func spansNearXrunsTold(in errors: String) -> [LostSpan] {
        let period = Int64(server.period)
        return errors.split(separator: "\n").filter { $0.contains("xrun near JACK frame") }
            .compactMap { number(after: "(take frame ", in: String($0)) }
            .map { LostSpan(position: $0 - 2 * period, frames: 8 * period) }
    }

    /// The exit status jcap gives a take it reported this of: 3 with frames lost (they outrank the
    /// rest), 9 with periods placed by a guess, 0 otherwise (a late copy alone keeps every frame).
    func exitStatus(reporting account: TakeAccount) -> Int32 {
        if !account.lostSpans.isEmpty { return 3 }
        if !account.uncertainSpans.isEmpty { return 9 }
        return 0
    }

    /// The exit status jcap's `--meter json` summary line in `output` calls for, by the same rule,
    /// for a take of any source (nil without a summary line).
    func exitStatus(reportedIn output: String) -> Int32? {
        guard let last = output.split(separator: "\n").last(where: { $0.hasPrefix("{\"summary\"") }),
              let object = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any],
              let summary = object["summary"] as? [String: Any] else { return nil }
        if (summary["lost"] as? [Any])?.isEmpty == false { return 3 }
        if (summary["uncertain"] as? [Any])?.isEmpty == false { return 9 }
        return 0
    }

    /// A library take's report as an account (sources `sig:out_N`, or `signalChannels` given).
    func account(of report: TakeReport?, signalChannels: [Int]? = nil, file: StaticString = #filePath,
                 line: UInt = #line) throws -> TakeAccount {
        let report = try XCTUnwrap(report, "no report", file: file, line: line)
        return try XCTUnwrap(TakeAccount(report, signalChannels: signalChannels), "\(report.outcome) \(report.sources)",
                             file: file, line: line)
    }

    /// The outcome a take that ended normally has by what it reports: frames lost (they outrank the
    /// rest), placement uncertain, or complete (a late copy alone keeps every frame).
    func outcome(reporting account: TakeAccount) -> TakeReport.Outcome {
        if !account.lostSpans.isEmpty { return .lostFrames }
        if !account.uncertainSpans.isEmpty { return .placementUncertain }
        return .complete
    }

    /// The status a session take's log entry has by what it reports.
    func takeStatus(reporting account: TakeAccount) -> TakeStatus {
        !account.lostSpans.isEmpty ? .framesLost : account.uncertainSpans.isEmpty ? .complete : .placementUncertain
    }

    /// The exit status of a session run whose takes reported these: the worst of theirs.
    func exitStatus(reportingAll accounts: [TakeAccount]) -> Int32 {
        ExitStatus.worst(accounts.map { ExitStatus(for: takeStatus(reporting: $0)) }).rawValue
    }

    /// Every take in a session folder's log as an account, in order.
    func takeLogAccounts(folder: String, file: StaticString = #filePath, line: UInt = #line) throws -> [TakeAccount] {
        try TakeLog(folder: folder).entries().map { entry in
            try XCTUnwrap(TakeAccount(entry, folder: folder), "take \(entry.take): \(entry)", file: file, line: line)
        }
    }

    /// The exit status jcap's console summary (standard error) calls for, by the same rule.
    func exitStatus(reportedOnConsole errors: String) -> Int32 {
        if errors.range(of: "jcap: [0-9,]+ xruns?, [0-9,]*[1-9][0-9,]* frames lost", options: .regularExpression) != nil { return 3 }
        if errors.contains("jcap: placement uncertain") { return 9 }
        return 0
    }

    /// Every take summary `--meter json` printed in `output` of a take that started, in order, as
    /// accounts (file paths inside the test's directory).
    func summaryAccounts(_ output: String, file: StaticString = #filePath, line: UInt = #line) throws -> [TakeAccount] {
        // A take that never started (cancelled while waiting) has no start frame and no file.
        try output.split(separator: "\n").filter { $0.hasPrefix("{\"summary\"") && !$0.contains("\"start_frame\":null") }.map { summary in
            var account = try XCTUnwrap(TakeAccount(meterSummaryLine: summary), String(summary), file: file, line: line)
            account.files = account.files.map { var each = $0; each.path = each.path.hasPrefix("/") ? each.path : path(each.path); return each }
            return account
        }
    }

    /// The clock jumps the test-signal client saw (where the signal itself skipped frames), as it
    /// printed them.
    func signalClockJumps() -> String {
        let jumps = (Self.signal?.output ?? "").split(separator: "\n").filter { $0.hasPrefix("clock jumped") }
        return jumps.isEmpty ? "the test signal's clock ran without a jump" : "the test signal's own clock: " + jumps.joined(separator: "; ")
    }

    /// Fails unless `run`'s exit status is the one take 1's log entry calls for.
    func assertStatusMatchesLog(_ run: (status: Int32, errors: String), folder: String,
                                file: StaticString = #filePath, line: UInt = #line) throws {
        let entry = try XCTUnwrap(try TakeLog(folder: folder).entries().first { $0.take == 1 }, run.errors, file: file, line: line)
        XCTAssertEqual(run.status, ExitStatus(for: entry.status).rawValue, "\(entry.status): \(run.errors)", file: file, line: line)
    }
}
