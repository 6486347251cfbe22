import JackCapture

extension TakeAccount {
    /// What a session's take log says of a take: its start frame, its files (relative to
    /// `folder`) with their tracks' sources and aligned latencies, pauses, lost, late and uncertain spans, the tracks left unpatched.
    /// `signalChannel` maps a track's source to its test-signal channel (by default from its
    /// `out_N` name). Nil for a take without a start frame or with a track of another source.
    public init?(_ entry: TakeLogEntry, folder: String,
                 signalChannel: (String) -> Int? = TakeAccount.signalChannel(ofPort:)) {
        guard let start = entry.startFrame else { return nil }
        var files: [File] = []
        for file in entry.files {
            var channels: [Int] = [], shifts: [Int] = [], unpatched: [[LostSpan]] = []
            for name in file.tracks {
                guard let track = entry.tracks.first(where: { $0.name == name }), let channel = signalChannel(track.source)
                else { return nil }
                channels.append(channel)
                shifts.append(track.alignedLatency ?? 0)
                let changes = entry.patching.filter { $0.track == name }.map { ($0.position, $0.source, $0.connected) }
                unpatched.append(Self.unpatchedSpans(source: track.source, changes: changes))
            }
            files.append(File(path: folder + "/" + file.path, signalChannels: channels, shifts: shifts, frames: file.frames,
                              unpatchedSpans: unpatched))
        }
        let pauses = entry.pauses.compactMap { pause in
            pause.toFrame.map { Pause(position: pause.position, skippedFrames: Int64(FrameTime.distance(from: pause.fromFrame, to: $0))) }
        } + (entry.masterJumps + entry.clockSteps).map { Pause(position: $0.position, skippedFrames: $0.frames) }
        self.init(startFrame: start, files: files, pauses: pauses,
                  lostSpans: entry.lost.map { LostSpan(position: $0.position, frames: $0.frames) },
                  lateCopySpans: entry.late.map { LostSpan(position: $0.position, frames: $0.frames) },
                  uncertainSpans: entry.uncertain.map { LostSpan(position: $0.position, frames: $0.frames) })
    }
}
