import Atomics
import Foundation

/// The reader's side of one file: it decodes blocks onto the file's ring ahead of the callback,
/// follows seeks (`SeekRequest`) and loops (`LoopDecision`), and ends with an end block.
///
/// At rate 1 with the file at the server's sample rate, blocks are the file's frames as they
/// are. Otherwise (`PlaybackRate.converterRates`) each seek starts a converter stream
/// (`VarispeedConverter`) at the seek's frame; loops feed the same stream from the file's start
/// without a flush, and the final end flushes it, so the output is exactly
/// round(input frames × ratio) long. Each block says which file frames it covers.
final class PlaybackFileReader {
    let file: SoundFile
    let ring: RingBuffer
    let channels: Int
    let blockBytes: Int
    /// The rate the ring's frames are played at.
    let serverRate: Int
    let quality: SampleRateConverterQuality
    private var generation: Int64 = -1
    private var position: Int64 = 0
    private var loopsDone = 0
    private var ended = false
    /// The file could not be read further (a decode error, or a converter libsamplerate
    /// refused): it ended early.
    private(set) var failed = false
    /// Where the file stopped being readable and why (libsndfile's or the converter's message).
    private(set) var failure: (frame: Int64, reason: String)?
    /// Why a converter could not be made (the player's prepare reports it).
    private(set) var converterError: CaptureError?
    /// The converter while the file is resampled; nil while it plays as it is.
    private var varispeed: VarispeedConverter?

    init(file: SoundFile, ring: RingBuffer, serverRate: Int, quality: SampleRateConverterQuality = .best) {
        self.file = file
        self.ring = ring
        self.serverRate = serverRate
        self.quality = quality
        channels = file.channels
        blockBytes = PlaybackRing.blockByteCount(channels: file.channels)
    }

    /// Writes at most one block. Returns whether it wrote one (or moved for a seek, a loop or a
    /// conversion).
    func fillOne(seek: SeekRequest, numberOfLoops: Int, rate: PlaybackRate = .normal) -> Bool {
        if seek.generation != generation { restart(at: seek, rate: rate) }
        guard !ended else { return false }
        if failed { return writeEndBlock() }
        if varispeed != nil { return fillResampled(numberOfLoops: numberOfLoops) }
        guard ring.writableByteCount() >= blockBytes else { return false }
        let block = stagedBlock()
        let read = file.read(into: block.samples, frames: PlaybackRing.blockFrames)
        if read > 0 {
            commit(block, header: PlaybackBlockHeader(generation: generation, position: position, frames: Int64(read)))
            position += Int64(read)
            return true
        }
        if file.hasReadError { fail(file.errorMessage) }
        if !failed, LoopDecision.atEndOfFile(numberOfLoops: numberOfLoops, loopsDone: loopsDone,
                                              fileFrames: file.frames) == .rewind, file.seek(toFrame: 0) {
            loopsDone += 1
            position = 0
            return true
        }
        return writeEndBlock()
    }

    /// A new seek generation: the file from the seek's frame, at the rate asked for now.
    private func restart(at seek: SeekRequest, rate: PlaybackRate) {
        generation = seek.generation
        position = min(seek.frame, file.frames)
        loopsDone = 0
        ended = false
        if !file.seek(toFrame: position) {
            // Past what libsndfile can seek to: nothing more of this file.
            position = file.frames
            _ = file.seek(toFrame: file.frames)
        }
        guard let rates = rate.converterRates(fileRate: file.sampleRate, serverRate: serverRate) else {
            varispeed = nil
            return
        }
        if varispeed?.inputRate != rates.input || varispeed?.outputRate != rates.output {
            // A new ratio (a rate change is a seek): a new converter, made here on the reader's
            // thread, never on JACK's.
            do {
                varispeed = try VarispeedConverter(channels: channels, inputRate: rates.input, outputRate: rates.output,
                                                   quality: quality)
            } catch {
                varispeed = nil
                converterError = error
                fail(error.description)
                return
            }
        }
        varispeed?.restart(fileStart: position, length: file.frames - position)
    }

    /// One step through the converter: a block if one is ready, else the end block if all is
    /// out, else one chunk of the file converted (or a loop, or the flush at the end).
    private func fillResampled(numberOfLoops: Int) -> Bool {
        guard let varispeed else { return false }
        if let ready = varispeed.readyBlock() {
            guard ring.writableByteCount() >= blockBytes else { return false }
            let block = stagedBlock()
            varispeed.takeBlock(frames: ready.frames, into: block.samples)
            commit(block, header: PlaybackBlockHeader(generation: generation, position: ready.position,
                                                      endPosition: ready.endPosition, frames: Int64(ready.frames)))
            return true
        }
        if varispeed.inputFinished { return writeEndBlock() }
        let read = file.read(into: varispeed.input, frames: varispeed.chunkFrames)
        do {
            if read > 0 {
                try varispeed.convert(frames: read)
                position += Int64(read)
                return true
            }
            if file.hasReadError {
                fail(file.errorMessage)
                return true
            }
            if LoopDecision.atEndOfFile(numberOfLoops: numberOfLoops, loopsDone: loopsDone,
                                        fileFrames: file.frames) == .rewind, file.seek(toFrame: 0) {
                loopsDone += 1
                position = 0
                varispeed.startPass(fileFrames: file.frames)
                return true
            }
            try varispeed.finish()
        } catch {
            fail(error.description)
        }
        return true
    }

    /// The file ends here: the frames before `position` were read, nothing after.
    private func fail(_ reason: String) {
        failed = true
        if failure == nil { failure = (position, reason) }
    }

    private struct StagedBlock {
        let start: UnsafeMutableRawPointer
        var samples: UnsafeMutablePointer<Float> {
            (start + PlaybackBlockHeader.byteCount).assumingMemoryBound(to: Float.self)
        }
    }

    /// The ring's room for the next block (the caller checked there is room).
    private func stagedBlock() -> StagedBlock {
        let pieces = ring.stagingPieces(byteCount: blockBytes, at: 0)
        precondition(pieces.firstByteCount == blockBytes, "a playback block never wraps around the ring")
        return StagedBlock(start: pieces.first)
    }

    private func commit(_ block: StagedBlock, header: PlaybackBlockHeader) {
        var header = header
        withUnsafeBytes(of: &header) { block.start.copyMemory(from: $0.baseAddress!, byteCount: PlaybackBlockHeader.fieldByteCount) }
        ring.commitWrite(byteCount: blockBytes)
    }

    /// The end block: nothing more of this generation.
    private func writeEndBlock() -> Bool {
        guard ring.writableByteCount() >= blockBytes else { return false }
        commit(stagedBlock(), header: PlaybackBlockHeader(generation: generation, position: position, frames: 0,
                                                          flags: PlaybackBlockHeader.endOfPlayback))
        ended = true
        return true
    }
}
