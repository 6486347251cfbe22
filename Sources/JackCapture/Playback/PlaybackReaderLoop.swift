import Foundation

/// The reading half of a player's butler round: each file's `PlaybackFileReader`, a block at a
/// time, following the seek and the rate the owner and the callback publish.
final class PlaybackReaderLoop: @unchecked Sendable {
    // @unchecked: used by the preparing thread to fill ahead, then only by the reader's butler.
    let readers: [PlaybackFileReader]

    /// What a round of reading did.
    enum Outcome: Equatable {
        /// At least one block was read (there may be more room: go round again).
        case filled
        /// Every ring is full, or every file has ended.
        case nothingToRead
        /// A seek from the playing frame waits for the callback to say which frame that is.
        case awaitingResume
    }

    init(readers: [PlaybackFileReader]) {
        self.readers = readers
    }

    /// Why a converter could not be made, for the first file that could not have one.
    var converterError: CaptureError? { readers.lazy.compactMap(\.converterError).first }

    /// Whether any file stopped decoding before its end.
    var anyFailed: Bool { readers.contains { $0.failed } }

    /// Fills every ring, before the callback runs.
    func fillAhead(seek: SeekRequest, numberOfLoops: Int, rate: PlaybackRate) {
        for reader in readers {
            while reader.fillOne(seek: seek, numberOfLoops: numberOfLoops, rate: rate) {}
        }
    }

    /// At most one block per file.
    func fill(_ state: PlayerProcessState) -> Outcome {
        var seek = SeekRequest(packed: state.seek.load(ordering: .acquiring))
        if seek.isFromPlayingFrame {
            // Read from the frame the callback was at when it took the seek, once it has.
            let resumed = state.resumedSeek.load(ordering: .acquiring)
            guard resumed >= 0, SeekRequest(packed: resumed).generation == seek.generation else { return .awaitingResume }
            seek = SeekRequest(packed: resumed)
        }
        let loops = state.numberOfLoops.load(ordering: .relaxed)
        let rate = PlaybackRate(tenThousandths: state.rateTenThousandths.load(ordering: .relaxed))
        var worked = false
        for reader in readers where reader.fillOne(seek: seek, numberOfLoops: loops, rate: rate) {
            worked = true
            // The test hook: a disk this slow.
            let delay = state.readerDelayMicroseconds.load(ordering: .relaxed)
            if delay > 0 { usleep(useconds_t(delay)) }
        }
        return worked ? .filled : .nothingToRead
    }
}
