import Atomics
import Foundation

/// The reader's side of one file: it decodes blocks onto the file's ring ahead of the callback,
/// follows seeks (`SeekRequest`) and loops (`LoopDecision`), and ends with an end block.
final class PlaybackFileReader {
    let file: SoundFile
    let ring: RingBuffer
    let channels: Int
    let blockBytes: Int
    private var generation: Int64 = -1
    private var position: Int64 = 0
    private var loopsDone = 0
    private var ended = false
    /// The file could not be read further (a decode error): it ended early.
    private(set) var failed = false

    init(file: SoundFile, ring: RingBuffer) {
        self.file = file
        self.ring = ring
        channels = file.channels
        blockBytes = PlaybackRing.blockByteCount(channels: file.channels)
    }

    /// Writes at most one block. Returns whether it wrote one (or moved for a seek or a loop).
    func fillOne(seek: SeekRequest, numberOfLoops: Int) -> Bool {
        if seek.generation != generation {
            generation = seek.generation
            position = min(seek.frame, file.frames)
            loopsDone = 0
            ended = false
            if !file.seek(toFrame: position) {
                // Past what libsndfile can seek to: nothing more of this file.
                position = file.frames
                _ = file.seek(toFrame: file.frames)
            }
        }
        guard !ended, ring.writableByteCount() >= blockBytes else { return false }
        let pieces = ring.stagingPieces(byteCount: blockBytes, at: 0)
        precondition(pieces.firstByteCount == blockBytes, "a playback block never wraps around the ring")
        let samples = (pieces.first + PlaybackBlockHeader.byteCount).assumingMemoryBound(to: Float.self)
        let read = file.read(into: samples, frames: PlaybackRing.blockFrames)
        if read > 0 {
            var header = PlaybackBlockHeader(generation: generation, position: position, frames: Int64(read))
            withUnsafeBytes(of: &header) { pieces.first.copyMemory(from: $0.baseAddress!, byteCount: PlaybackBlockHeader.byteCount) }
            ring.commitWrite(byteCount: blockBytes)
            position += Int64(read)
            return true
        }
        if file.hasReadError { failed = true }
        if !failed, LoopDecision.atEndOfFile(numberOfLoops: numberOfLoops, loopsDone: loopsDone,
                                              fileFrames: file.frames) == .rewind, file.seek(toFrame: 0) {
            loopsDone += 1
            position = 0
            return true
        }
        var header = PlaybackBlockHeader(generation: generation, position: position, frames: 0,
                                         flags: PlaybackBlockHeader.endOfPlayback)
        withUnsafeBytes(of: &header) { pieces.first.copyMemory(from: $0.baseAddress!, byteCount: PlaybackBlockHeader.byteCount) }
        ring.commitWrite(byteCount: blockBytes)
        ended = true
        return true
    }
}
