extension CaptureClient {
    /// The files of a take split on wall-clock boundaries, every channel in each: the
    /// first named for the take's start, each next one for its boundary (`SplitNaming`: the start
    /// inserted before `basePath`'s extension, never a name that is taken).
    package static func splitLayout(basePath: String, interval: SplitInterval, startMicroseconds: Int64,
                                   channels: [Int]) -> TakeLayout {
        let first = SplitNaming.unusedPath(SplitNaming.segmentPath(basePath, startMicroseconds: startMicroseconds))
        var layout = TakeLayout(files: [TakeFileSpec(path: first, channels: channels)], split: interval)
        layout.filesForSegment = { start in
            // A boundary's moment is always known to the take that reached it.
            let moment = start.boundaryMicroseconds ?? WallClockTime.nowMicrosecondsSinceEpoch()
            return [TakeFileSpec(path: SplitNaming.unusedPath(SplitNaming.segmentPath(basePath, startMicroseconds: moment)),
                                 channels: channels)]
        }
        return layout
    }

    /// The next take as the configuration splits it (`configuration.split`): files named after
    /// `basePath`, the first for the configured start.
    func makeSplitTake(basePath: String, interval: SplitInterval, settings: RecordingSettings?) throws(CaptureError) -> Take {
        let start = Take.estimatedStartMicroseconds(configuration.start, on: jack)
        return try makeTake(CaptureClient.splitLayout(basePath: basePath, interval: interval, startMicroseconds: start,
                                                      channels: Array(0..<channelCount)),
                            settings: settings)
    }
}
