import Foundation

/// Overdubbing in a studio session (AVAudioSession's PlayAndRecord): a take's files play through
/// JACK, each track on an output port named after it, while the session's armed tracks record the
/// next take, and the new take lines up with the one played sample for sample.
///
/// The alignment, in frames. The player sends take frame 0 on JACK frame P; it leaves the
/// interface `Lp` frames later (the playback latency JACK reports for the ports it is connected
/// to, the largest of them), when the performer hears it and plays along. What they play reaches
/// each converter at that moment and JACK hands it to jcap `Lc` frames later (each track's
/// capture latency). So the new take starts at P + Lp on the converters' clock: the session
/// records aligned to capture latency (`alignsToCaptureLatency`, required here), which shifts each track
/// by its own `Lc`. Frame k of the overdub is what reached the converters while frame k of the
/// played take was leaving the outputs. Both latencies are in the take log (`overdub`,
/// `aligned_latency`).
///
/// Limits: the playback latency is one for all outputs (an interface's outputs share theirs); a
/// JACK xrun or a player underrun shifts the rest of the playback against the recording, and
/// either is reported.
public final class SessionOverdub: Sendable {
    public let session: StudioSession
    /// The take played, as the log has it.
    public let playedTake: TakeLogEntry
    public let player: Player

    /// Opens take `number`'s files and the player's JACK client, `<session>-play`, with one
    /// output port per track named after it, connected to `outputs`. The files holding only
    /// tracks named in `replacing` (those recorded anew) are not played, so the performer does
    /// not hear the part being replaced.
    ///
    /// Throws `.overdubNeedsLatencyAlignment` when the session does not align to capture latency,
    /// `.takeLog` when the take is not in the log, `.overdub` when it was discarded or deleted or
    /// recorded at another sample rate than the server's,
    /// `.playback` for its files and the player's client and connections.
    public init(session: StudioSession, take number: Int, outputs: PlayerOutputs = .default,
                serverName: String? = nil, replacing: Set<String> = []) throws(StudioSessionError) {
        guard session.client.configuration.alignsToCaptureLatency else {
            throw .overdubNeedsLatencyAlignment(take: number)
        }
        let entry: TakeLogEntry
        do { entry = try session.log.entry(number) } catch { throw .takeLog(error) }
        guard !entry.status.isRemoved, !entry.files.isEmpty else {
            throw .overdub("take \(number) was \(entry.status.rawValue): it has no files to play")
        }
        guard entry.sampleRate == session.client.sampleRate else {
            // Resampled, its frames would not be the new take's: no sample-exact alignment.
            throw .overdub("take \(number) was recorded at \(entry.sampleRate) Hz and the server runs at \(session.client.sampleRate) Hz")
        }
        var played = entry
        played.files = entry.files.filter { file in !file.tracks.allSatisfy(replacing.contains) }
        guard !played.files.isEmpty else {
            throw .overdub("every track of take \(number) is being recorded anew: nothing of it is left to play")
        }
        let (paths, portNames) = Self.playbackFiles(of: played, in: session.definition)
        let player: Player
        do {
            player = try Player(contentsOf: paths.map { URL(fileURLWithPath: $0) })
            try player.prepareToPlay(clientName: session.definition.name + "-play", server: serverName,
                                     outputs: outputs, portNames: portNames)
        } catch { throw .playback(error) }
        self.session = session
        self.playedTake = entry
        self.player = player
    }

    deinit { player.close() }

    /// A take's files, with the folder in front, and an output port name for each of their
    /// channels: the session's port name for each track (`:` replaced).
    package static func playbackFiles(of entry: TakeLogEntry, in definition: SessionDefinition) -> (paths: [String], portNames: [String]) {
        let folder = definition.folder.hasSuffix("/") ? definition.folder : definition.folder + "/"
        let portNames = entry.files.flatMap(\.tracks).map { track in
            definition.tracks.first { $0.name == track }?.portName ?? track.replacingOccurrences(of: ":", with: "-")
        }
        return (entry.files.map { folder + $0.path }, portNames)
    }

    /// The playback latency of what the player is connected to now: the largest over every port
    /// its outputs feed (jack_port_get_latency_range, JackPlaybackLatency); 0 unconnected.
    public var playbackLatency: Int {
        let jack = session.client.jack
        return player.connections.joined().compactMap { name in
            (try? jack.port(named: name)).map { jack.playbackLatency(of: $0).maximum }
        }.max() ?? 0
    }

    /// How far ahead an overdub starting "now" is scheduled, so that both the player and the
    /// take are armed before their frames come: a quarter of a second, at least four periods.
    public var lead: Int {
        let jack = session.client.jack
        return max(4 * jack.bufferSize, jack.sampleRate / 4)
    }

    /// Plays the take from its first frame on JACK frame `frame` (nil: `lead` from now) and
    /// records the session's next take aligned to it, `length` long (nil: as long as the take
    /// played). Stop both with `stop(_:)`.
    public func record(playingAt frame: UInt32? = nil, length: CaptureDuration? = nil) throws(StudioSessionError) -> SessionTake {
        let jack = session.client.jack
        let playFrame = frame ?? FrameTime.advance(jack.estimatedFrameTime, by: lead)
        guard FrameTime.distance(from: jack.estimatedFrameTime, to: playFrame) > 0 else {
            throw .capture(.startInPast("@\(playFrame) (JACK's clock is at \(jack.estimatedFrameTime))"))
        }
        let latency = playbackLatency
        let alignment = TakeLogOverdub(take: playedTake.take, playbackStartFrame: playFrame, playbackLatency: latency)
        let takeLength = length ?? .frames(max(1, playedTake.frames))
        player.pause()
        player.currentFrame = 0
        let sessionTake = try session.record(at: .frame(FrameTime.advance(playFrame, by: latency)), length: takeLength,
                                            overdub: alignment)
        do {
            try player.play(atFrame: playFrame)
        } catch {
            sessionTake.stop()
            _ = sessionTake.finish()
            throw .playback(error)
        }
        return sessionTake
    }

    /// Stops the take and the playback together; returns the JACK frame the take stops before.
    @discardableResult
    public func stop(_ sessionTake: SessionTake) -> UInt32 {
        player.stop()
        return sessionTake.stop()
    }

    /// Frames of silence the player played because its reader fell behind, and where (file
    /// frames of the played take): after one, the overdub is out of line with the take.
    public var playbackUnderruns: [PlaybackUnderrun] { player.underruns }
}
