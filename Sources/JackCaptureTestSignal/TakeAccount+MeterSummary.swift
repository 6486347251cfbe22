import Foundation
import JackCapture

extension TakeAccount {
    /// What `jcap --meter json` said of a take in its summary line (`{"summary":{...}}`, see
    /// docs/command-line.md): start frame, files with their channels' sources and aligned latencies,
    /// pauses and master clock jumps, lost, late and uncertain spans, the channels left unpatched.
    /// Nil for any other line, or a take without a start or with a source that is no test-signal port.
    ///
    /// `signalChannel` names the test-signal channel a source port carries: the signal's own
    /// `out_N` ports unless told (a NetJACK2 slave's `system:capture_N`, patched from them).
    public init?(meterSummaryLine line: some StringProtocol,
                 signalChannel: (String) -> Int? = TakeAccount.signalChannel(ofPort:)) {
        guard let summary = try? JSONDecoder().decode(MeterSummaryLine.self, from: Data(line.utf8)).summary,
              let start = summary.start_frame else { return nil }
        var files: [File] = []
        for file in summary.files {
            var channels: [Int] = [], shifts: [Int] = [], unpatched: [[LostSpan]] = []
            for number in file.channels {
                guard summary.channels.indices.contains(number - 1),
                      let channel = signalChannel(summary.channels[number - 1].source) else { return nil }
                channels.append(channel)
                shifts.append(summary.channels[number - 1].aligned_latency ?? 0)
                let changes = (summary.patching ?? []).filter { $0.channel == number }.map { ($0.position, $0.source, $0.connected) }
                unpatched.append(Self.unpatchedSpans(source: summary.channels[number - 1].source, changes: changes))
            }
            files.append(File(path: file.path, signalChannels: channels, shifts: shifts, firstPosition: file.position, frames: file.frames,
                              unpatchedSpans: unpatched))
        }
        var pauses = summary.pauses.compactMap { pause in
            pause.to_frame.map { Pause(position: pause.position, skippedFrames: Int64(FrameTime.distance(from: pause.from_frame, to: $0))) }
        }
        // A jump of the master's clock (`--master-clock`) moves the signal on as a pause does.
        pauses += (summary.master_jumps ?? []).map { Pause(position: $0.position, skippedFrames: $0.frames) }
        // So does JACK's own clock where it renumbered its frames at a period change.
        pauses += (summary.clock_steps ?? []).map { Pause(position: $0.position, skippedFrames: $0.frames) }
        self.init(startFrame: start, files: files, pauses: pauses, lostSpans: summary.lost.map(\.span),
                  lateCopySpans: summary.late.map(\.span), uncertainSpans: summary.uncertain.map(\.span))
    }
}

/// The fields of `--meter json`'s summary line the verifier needs.
private struct MeterSummaryLine: Decodable {
    struct Span: Decodable {
        let position: Int64
        let frames: Int64
        var span: LostSpan { LostSpan(position: position, frames: frames) }
    }

    struct Pause: Decodable {
        let position: Int64
        let from_frame: UInt32
        let to_frame: UInt32?
    }

    struct File: Decodable {
        let path: String
        let channels: [Int]
        let position: Int64
        let frames: Int64?
    }

    struct Patch: Decodable {
        let position: Int64
        let channel: Int
        let source: String
        let connected: Bool
    }

    struct Channel: Decodable {
        let source: String
        let aligned_latency: Int?
    }

    struct Summary: Decodable {
        let start_frame: UInt32?
        let files: [File]
        let lost: [Span]
        let late: [Span]
        let uncertain: [Span]
        let pauses: [Pause]
        let master_jumps: [Span]?
        let clock_steps: [Span]?
        let patching: [Patch]?
        let channels: [Channel]
    }

    let summary: Summary
}
