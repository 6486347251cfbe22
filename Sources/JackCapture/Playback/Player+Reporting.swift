/// What the player's butler reports to the delegate, on the butler's thread.
extension Player {
    func reportUnderruns(_ state: PlayerStatePointer) {
        let events = state.pointee.events
        while events.readableByteCount() >= PlaybackUnderrunRecord.byteCount {
            var record = PlaybackUnderrunRecord(position: 0, jackFrame: 0, frames: 0)
            withUnsafeMutableBytes(of: &record) { events.peek(into: $0.baseAddress!, byteCount: PlaybackUnderrunRecord.byteCount, at: 0) }
            events.commitRead(byteCount: PlaybackUnderrunRecord.byteCount)
            let underrun = PlaybackUnderrun(position: record.position, jackFrame: UInt32(truncatingIfNeeded: record.jackFrame),
                                            frames: Int(record.frames))
            let delegate = control.withLock { control -> PlayerDelegate? in
                control.recordedUnderruns.append(underrun)
                return control.delegate
            }
            delegate?.player(self, didUnderrun: underrun)
        }
    }

    /// Tells the delegate of each file that stopped decoding, once.
    func reportDecodeErrors(_ reading: PlaybackReaderLoop) {
        for (reader, url) in zip(reading.readers, urls) {
            guard let failure = reader.failure else { continue }
            let error = PlayerError.decodeFailed(url.path, frame: failure.frame, reason: failure.reason)
            let delegate = control.withLock { control -> PlayerDelegate?? in
                guard !control.recordedDecodeErrors.contains(error) else { return nil }
                control.recordedDecodeErrors.append(error)
                return .some(control.delegate)
            }
            if let delegate { delegate?.playerDecodeErrorDidOccur(self, error: error) }
        }
    }

    func interrupt(_ interruption: PlayerInterruption) {
        let delegate = control.withLock { control -> PlayerDelegate? in
            control.recordedInterruptions.append(interruption)
            return control.delegate
        }
        delegate?.player(self, wasInterrupted: interruption)
    }

    /// The end of playing (back to the start, as AVAudioPlayer does), or the server gone.
    func checkFinished(_ state: PlayerStatePointer, reading: PlaybackReaderLoop) {
        let finished = state.pointee.finishedCount.load(ordering: .acquiring)
        let gone = state.pointee.serverGone.load(ordering: .acquiring)
        let allRead = !reading.anyFailed
        let (report, shutdownInterruption) = control.withLock { control -> ((PlayerDelegate?, Bool)?, Bool) in
            var shutdownInterruption = false
            if gone && !control.reportedShutdownInterruption {
                control.reportedShutdownInterruption = true
                shutdownInterruption = true
            }
            if gone && !control.reportedShutdown {
                control.reportedShutdown = true
                let wasPlaying = control.playRequested
                control.playRequested = false
                return (wasPlaying ? (control.delegate, false) : nil, shutdownInterruption)
            }
            guard finished != control.finishedSeen, control.playRequested else { return (nil, shutdownInterruption) }
            control.finishedSeen = finished
            control.playRequested = false
            // At the end, back to the start (AVAudioPlayer's currentTime is 0 after it).
            control.seek(to: 0)
            return ((control.delegate, allRead), shutdownInterruption)
        }
        if shutdownInterruption { interrupt(.serverShutDown) }
        if let (delegate, successfully) = report {
            delegate?.playerDidFinishPlaying(self, successfully: successfully)
        }
    }
}
