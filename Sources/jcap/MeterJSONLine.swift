import Foundation
import JackCapture

/// `--meter json`: one JSON object per line per update, for other programs.
///
/// `{"buffer_fill":0.01,"channels":[{"average_db":-15.2,"clip":false,"clip_count":0,
/// "highest_peak_db":-9.8,"name":"out_1","peak_db":-12.3,"peak_hold_db":-10.1}],
/// "elapsed_frames":48000,"lost_frames":0,"state":"recording","xruns":0}`
struct MeterJSONLine: Encodable {
    struct Channel: Encodable {
        let name: String
        let peak_db: Double
        let average_db: Double
        let peak_hold_db: Double
        let highest_peak_db: Double
        let clip: Bool
        let clip_count: Int64
    }

    let state: String
    let elapsed_frames: Int64
    let remaining_frames: Int64?
    let countdown_frames: Int64?
    let channels: [Channel]
    let buffer_fill: Double
    let xruns: Int64
    let lost_frames: Int64

    init(_ snapshot: MeterSnapshot) {
        switch snapshot.state {
        case .ready: state = "ready"; countdown_frames = nil
        case .waitingForPorts: state = "waiting_for_ports"; countdown_frames = nil
        case .countdown(let frames): state = "countdown"; countdown_frames = frames
        case .recording: state = "recording"; countdown_frames = nil
        case .playing: state = "playing"; countdown_frames = nil
        case .paused: state = "paused"; countdown_frames = nil
        case .finished: state = "finished"; countdown_frames = nil
        }
        elapsed_frames = snapshot.elapsedFrames
        remaining_frames = snapshot.remainingFrames
        channels = snapshot.channels.map {
            Channel(name: $0.name, peak_db: Self.round($0.reading.peakPower),
                    average_db: Self.round($0.reading.averagePower), peak_hold_db: Self.round($0.reading.peakHold),
                    highest_peak_db: Self.round($0.reading.highestPeak), clip: $0.reading.isClipped,
                    clip_count: $0.reading.clipCount)
        }
        buffer_fill = (snapshot.bufferFill * 10_000).rounded() / 10_000
        xruns = snapshot.xruns
        lost_frames = snapshot.lostFrames
    }

    static func round(_ decibels: Float) -> Double { (Double(decibels) * 100).rounded() / 100 }

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
