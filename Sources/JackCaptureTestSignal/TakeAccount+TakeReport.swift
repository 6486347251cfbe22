import JackCapture

extension TakeAccount {
    /// What a library take reported: its start frame, files (each segment's at its take
    /// position), pauses, lost spans, late copies, uncertain placements and the channels left
    /// unpatched. `signalChannels` gives the test-signal
    /// channel of each take channel; by default it is read from each source's `out_N` name.
    /// Nil for a take that recorded nothing or has a source that is no test-signal port.
    public init?(_ report: TakeReport, signalChannels: [Int]? = nil) {
        guard let start = report.startFrame else { return nil }
        let channels = signalChannels ?? report.sources.compactMap(TakeAccount.signalChannel(ofPort:))
        guard channels.count == report.channels else { return nil }
        let latencies = report.latencyAlignment?.latencies ?? Array(repeating: 0, count: channels.count)
        let numbers = report.sources.indices.map { String($0) }
        let changes = report.events.compactMap { TakeLogPatch($0, tracks: numbers) }
        let unpatched = report.sources.indices.map { channel in
            Self.unpatchedSpans(source: report.sources[channel],
                                changes: changes.filter { $0.track == numbers[channel] }.map { ($0.position, $0.source, $0.connected) })
        }
        let files = report.segments.flatMap { segment in
            segment.files.map { file in
                File(path: file.path, signalChannels: file.channels.map { channels[$0] }, shifts: file.channels.map { latencies[$0] },
                     firstPosition: segment.position, frames: report.fileSampleRate == report.sampleRate ? file.frames : nil,
                     unpatchedSpans: file.channels.map { unpatched[$0] })
            }
        }
        let pauses = report.pauses.compactMap { pause in
            pause.toFrame.map { Pause(position: pause.position, skippedFrames: Int64(FrameTime.distance(from: pause.fromFrame, to: $0))) }
        } + (report.masterClockJumps + report.clockSteps).map { Pause(position: $0.position, skippedFrames: $0.frames) }
        self.init(startFrame: start, files: files, pauses: pauses, lostSpans: report.lostSpans,
                  lateCopySpans: report.lateCopySpans, uncertainSpans: report.uncertainSpans)
    }
}
