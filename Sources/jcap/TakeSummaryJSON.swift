import Foundation
import JackCapture

/// `--meter json`'s last word on each take: one line `{"summary":{...}}` after the take ends
/// (one per take of a session's back-to-back run), with everything a program needs to trust or
/// check the files: the outcome, the files and the take channels each holds, the JACK frame of the
/// first frame, the frames, and every span jcap reported (lost as silence, copied late, placed by
/// a guess) at its take position, the pauses, the xruns and each channel's levels.
///
/// `{"summary":{"channels":[{"clip_count":0,"highest_peak_db":-12.04,"name":"out_1",
/// "source":"sig:out_1"}],"files":[{"channels":[1],"frames":48000,"path":"take.wav","position":0}],
/// "frames":48000,"late":[],"lost":[],"outcome":"complete","pauses":[],"sample_rate":48000,
/// "session":null,"start_frame":123456,"take":null,"uncertain":[],"xruns":0}}`
struct TakeSummaryJSON: Encodable {
    struct Span: Encodable, Equatable {
        let position: Int64
        let frames: Int64
    }

    struct Pause: Encodable, Equatable {
        let position: Int64
        let from_frame: UInt32
        let to_frame: UInt32?

        enum CodingKeys: String, CodingKey { case position, from_frame, to_frame }

        /// `to_frame` null when the take ended paused.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(position, forKey: .position)
            try container.encode(from_frame, forKey: .from_frame)
            try container.encode(to_frame, forKey: .to_frame)
        }
    }

    struct File: Encodable, Equatable {
        let path: String
        /// The take channels it holds, numbered from 1 as the console numbers them.
        let channels: [Int]
        /// Take position of its first frame (a later file of a split take starts further in).
        let position: Int64
        let frames: Int64?

        enum CodingKeys: String, CodingKey { case path, channels, position, frames }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(channels, forKey: .channels)
            try container.encode(position, forKey: .position)
            try container.encode(frames, forKey: .frames)
        }
    }

    struct Channel: Encodable, Equatable {
        let name: String
        let source: String
        /// For a take aligned to capture latency: the latency this channel was aligned by.
        let aligned_latency: Int?
        /// Nil with metering off.
        let highest_peak_db: Double?
        let clip_count: Int64?

        enum CodingKeys: String, CodingKey { case name, source, aligned_latency, highest_peak_db, clip_count }

        /// Every key, null where there is nothing (no alignment, metering off).
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(source, forKey: .source)
            try container.encode(aligned_latency, forKey: .aligned_latency)
            try container.encode(highest_peak_db, forKey: .highest_peak_db)
            try container.encode(clip_count, forKey: .clip_count)
        }
    }

    /// A source connected to or disconnected from a channel during the take (`TakeLogPatch`).
    struct Patch: Encodable, Equatable {
        let position: Int64
        /// From 1, as `files`' channels.
        let channel: Int
        let source: String
        let connected: Bool
        let exact: Bool
        let uncertain_frames: Int64?

        enum CodingKeys: String, CodingKey { case position, channel, source, connected, exact, uncertain_frames }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(position, forKey: .position)
            try container.encode(channel, forKey: .channel)
            try container.encode(source, forKey: .source)
            try container.encode(connected, forKey: .connected)
            try container.encode(exact, forKey: .exact)
            try container.encode(uncertain_frames, forKey: .uncertain_frames)
        }

        /// A plain recording's changes, from its events (none from before its first frame).
        static func changes(in events: [CaptureEvent], channels: Int) -> [Patch] {
            let numbers = (1...max(1, channels)).map(String.init)
            return events.compactMap { event in
                guard let patch = TakeLogPatch(event, tracks: numbers), let channel = Int(patch.track) else { return nil }
                return Patch(position: patch.position, channel: channel, source: patch.source, connected: patch.connected,
                             exact: patch.exact, uncertain_frames: patch.uncertainFrames)
            }
        }
    }

    struct Body: Encodable {
        let session: String?
        let take: Int?
        let outcome: String
        let sample_rate: Int
        let start_frame: UInt32?
        let frames: Int64
        let files: [File]
        let lost: [Span]
        let late: [Span]
        let uncertain: [Span]
        let dropouts: [Span]
        let master_start_frame: UInt32?
        let master_jumps: [Span]
        let clock_steps: [Span]
        let pauses: [Pause]
        let patching: [Patch]
        let lost_events: Int
        let xruns: Int64
        let channels: [Channel]

        enum CodingKeys: String, CodingKey {
            case session, take, outcome, sample_rate, start_frame, frames, files, lost, late, uncertain, dropouts, master_start_frame, master_jumps, clock_steps,
                 pauses, patching, lost_events, xruns, channels
        }

        /// Every key on every summary: null where there is nothing (no session, no start).
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(session, forKey: .session)
            try container.encode(take, forKey: .take)
            try container.encode(outcome, forKey: .outcome)
            try container.encode(sample_rate, forKey: .sample_rate)
            try container.encode(start_frame, forKey: .start_frame)
            try container.encode(frames, forKey: .frames)
            try container.encode(files, forKey: .files)
            try container.encode(lost, forKey: .lost)
            try container.encode(late, forKey: .late)
            try container.encode(uncertain, forKey: .uncertain)
            try container.encode(dropouts, forKey: .dropouts)
            try container.encode(master_start_frame, forKey: .master_start_frame)
            try container.encode(master_jumps, forKey: .master_jumps)
            try container.encode(clock_steps, forKey: .clock_steps)
            try container.encode(pauses, forKey: .pauses)
            try container.encode(patching, forKey: .patching)
            try container.encode(lost_events, forKey: .lost_events)
            try container.encode(xruns, forKey: .xruns)
            try container.encode(channels, forKey: .channels)
        }
    }

    let summary: Body

    /// A plain recording's take. `names`: the channel names the console shows.
    init(_ report: TakeReport, names: [String]) {
        let outcome: String = switch report.outcome {
        case .cancelled: "cancelled"
        case .missedStart: "missed start"
        default: TakeStatus(report.outcome).rawValue
        }
        let latencies = report.latencyAlignment?.latencies
        let channels = report.sources.indices.map { index in
            Channel(name: index < names.count ? names[index] : report.sources[index], source: report.sources[index],
                    aligned_latency: latencies.map { $0[index] },
                    highest_peak_db: report.channelLevels.map { Self.decibels($0[index].highestPeak) },
                    clip_count: report.channelLevels.map { $0[index].clipCount })
        }
        let files = report.segments.flatMap { segment in
            segment.files.map { File(path: $0.path, channels: $0.channels.map { $0 + 1 }, position: segment.position, frames: $0.frames) }
        }
        summary = Body(session: nil, take: nil, outcome: outcome, sample_rate: report.sampleRate, start_frame: report.startFrame,
                       frames: report.frames, files: files,
                       lost: report.lostSpans.map { Span(position: $0.position, frames: $0.frames) },
                       late: report.lateCopySpans.map { Span(position: $0.position, frames: $0.frames) },
                       uncertain: report.uncertainSpans.map { Span(position: $0.position, frames: $0.frames) },
                       dropouts: report.linkDropouts.map { Span(position: $0.position, frames: $0.frames) },
                       master_start_frame: report.masterStartFrame,
                       master_jumps: report.masterClockJumps.map { Span(position: $0.position, frames: $0.frames) },
                       clock_steps: report.clockSteps.map { Span(position: $0.position, frames: $0.frames) },
                       pauses: report.pauses.map { Pause(position: $0.position, from_frame: $0.fromFrame, to_frame: $0.toFrame) },
                       patching: Patch.changes(in: report.events, channels: report.sources.count),
                       lost_events: report.lostEvents,
                       xruns: report.xruns, channels: channels)
    }

    /// One take of a session as its take log entry tells it; file paths inside `folder`.
    init(_ entry: TakeLogEntry, session: String, folder: String) {
        let channels = entry.tracks.map {
            Channel(name: $0.name, source: $0.source, aligned_latency: $0.alignedLatency, highest_peak_db: $0.highestPeakDBFS,
                    clip_count: $0.clippedSamples)
        }
        let files = entry.files.map { file in
            File(path: folder.hasSuffix("/") ? folder + file.path : folder + "/" + file.path,
                 channels: file.tracks.compactMap { name in entry.tracks.firstIndex { $0.name == name }.map { $0 + 1 } },
                 position: 0, frames: file.frames)
        }
        summary = Body(session: session, take: entry.take, outcome: entry.status.rawValue, sample_rate: entry.sampleRate,
                       start_frame: entry.startFrame, frames: entry.frames, files: files,
                       lost: entry.lost.map { Span(position: $0.position, frames: $0.frames) },
                       late: entry.late.map { Span(position: $0.position, frames: $0.frames) },
                       uncertain: entry.uncertain.map { Span(position: $0.position, frames: $0.frames) },
                       dropouts: entry.dropouts.map { Span(position: $0.position, frames: $0.frames) },
                       master_start_frame: entry.masterStartFrame,
                       master_jumps: entry.masterJumps.map { Span(position: $0.position, frames: $0.frames) },
                       clock_steps: entry.clockSteps.map { Span(position: $0.position, frames: $0.frames) },
                       pauses: entry.pauses.map { Pause(position: $0.position, from_frame: $0.fromFrame, to_frame: $0.toFrame) },
                       patching: entry.patching.map { patch in
                           Patch(position: patch.position, channel: (entry.tracks.firstIndex { $0.name == patch.track } ?? -1) + 1,
                                 source: patch.source, connected: patch.connected, exact: patch.exact,
                                 uncertain_frames: patch.uncertainFrames)
                       },
                       lost_events: entry.lostEvents,
                       xruns: Int64(entry.xruns.count), channels: channels)
    }

    /// dBFS to two decimals, silence (-inf) at the take log's floor so JSON can hold it.
    static func decibels(_ value: Float) -> Double {
        max(TakeLogTrack.peakFloor, (Double(value) * 100).rounded() / 100)
    }

    /// Keys sorted, as in the meter lines around it (one line a take: JSONEncoder is fast enough).
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    func encoded() -> String {
        guard let data = try? Self.encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
