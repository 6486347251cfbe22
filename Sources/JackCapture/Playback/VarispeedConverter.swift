
/// One pass over a file through the reader's converter: input frames [inputStart, inputStart +
/// length) of the converter's stream (counted since its last reset, at a seek) are file frames
/// [fileStart, fileStart + length). The first pass starts at the seek's frame; each loop adds a
/// pass over the whole file, fed to the same converter without a flush, so the seam is seamless.
///
/// Output frames follow the converter's rule (`SampleRateConverter`): input [a, b) lands at output
/// [round(a × ratio), round(b × ratio)), ratio = outputRate / inputRate.
struct VarispeedSegment: Equatable {
    let inputStart: Int64
    let fileStart: Int64
    let length: Int64
    /// round(inputStart × ratio): the pass's first output frame.
    let outputStart: Int64
    /// round((inputStart + length) × ratio): the output frame after the pass's last.
    let outputEnd: Int64
    let inputRate: Int
    let outputRate: Int

    init(inputStart: Int64, fileStart: Int64, length: Int64, inputRate: Int, outputRate: Int) {
        self.inputStart = inputStart
        self.fileStart = fileStart
        self.length = length
        self.inputRate = inputRate
        self.outputRate = outputRate
        outputStart = SampleRateConverter.outputLength(forInputFrames: inputStart, inputRate: inputRate, outputRate: outputRate)
        outputEnd = SampleRateConverter.outputLength(forInputFrames: inputStart + length, inputRate: inputRate,
                                                     outputRate: outputRate)
    }

    /// The file frame that stream output frame `output` plays: the input frame a whose output
    /// span [round(a × ratio), round((a + 1) × ratio)) holds it (the largest a with
    /// round(a × ratio) ≤ output), within the pass; exactly `fileStart` at the pass's first output
    /// frame and `fileStart + length` at `outputEnd`.
    func filePosition(atOutput output: Int64) -> Int64 {
        if output <= outputStart { return fileStart }
        if output >= outputEnd { return fileStart + length }
        // round(a × out / in) ≤ o  ⟺  2a × out < (2o + 1) × in: a = ceil((2o + 1) × in / (2 × out)) - 1.
        let numerator = (2 * Int128(output) + 1) * Int128(inputRate)
        let denominator = 2 * Int128(outputRate)
        let inputFrame = Int64((numerator + denominator - 1) / denominator) - 1
        return fileStart + min(max(inputFrame - inputStart, 0), length)
    }

    /// Output frames the reader puts in its next block: a full block, or less only where a pass
    /// ends (a block never spans a loop's wrap, nor the end), or 0 to wait for more output.
    static func nextBlockFrames(pendingFrames: Int, toPassEnd: Int64, blockFrames: Int) -> Int {
        let frames = Int(min(Int64(min(pendingFrames, blockFrames)), max(toPassEnd, 0)))
        guard frames > 0, frames == blockFrames || Int64(frames) == toPassEnd else { return 0 }
        return frames
    }
}

/// The reader's converter for one file (reader thread only): it takes file frames in, converts
/// them (libsamplerate, through `SampleRateConverter`), and hands out blocks of output frames,
/// each within one pass, with the file frames they cover.
final class VarispeedConverter {
    let converter: SampleRateConverter
    let channels: Int
    /// File frames read per conversion: about one block's output.
    let chunkFrames: Int
    /// Where the reader decodes a chunk of the file.
    let input: UnsafeMutablePointer<Float>
    /// Converted output not yet in a block, interleaved.
    private var pending: [Float] = []
    private var passes: [VarispeedSegment] = []
    /// Stream output frames already put in blocks.
    private var placedFrames: Int64 = 0
    /// The converter was flushed (`finish`): no more input in this stream.
    private(set) var inputFinished = false

    init(channels: Int, inputRate: Int, outputRate: Int, quality: SampleRateConverterQuality) throws(CaptureError) {
        converter = try SampleRateConverter(channels: channels, inputRate: inputRate, outputRate: outputRate, quality: quality)
        self.channels = channels
        chunkFrames = max(64, min(8_192, Int(Double(PlaybackRing.blockFrames) / converter.ratio)))
        input = .allocate(capacity: chunkFrames * channels)
        input.initialize(repeating: 0, count: chunkFrames * channels)
    }

    deinit { input.deallocate() }

    var inputRate: Int { converter.inputRate }
    var outputRate: Int { converter.outputRate }
    var pendingFrames: Int { pending.count / channels }

    /// A new stream (a seek): file frames [fileStart, fileStart + length) first.
    func restart(fileStart: Int64, length: Int64) {
        converter.reset()
        pending.removeAll(keepingCapacity: true)
        placedFrames = 0
        inputFinished = false
        passes = [VarispeedSegment(inputStart: 0, fileStart: fileStart, length: length,
                                   inputRate: inputRate, outputRate: outputRate)]
    }

    /// A loop: the whole file, from its first frame, follows the input so far (no flush).
    func startPass(fileFrames: Int64) {
        let last = passes[passes.count - 1]
        passes.append(VarispeedSegment(inputStart: last.inputStart + last.length, fileStart: 0, length: fileFrames,
                                       inputRate: inputRate, outputRate: outputRate))
    }

    /// Converts `frames` frames decoded into `input`.
    func convert(frames: Int) throws(CaptureError) {
        try converter.convert(input, frames: frames) { samples, count in
            pending.append(contentsOf: UnsafeBufferPointer(start: samples, count: count * channels))
        }
    }

    /// The end of the input: the rest of the output, to exactly round(input × ratio) frames.
    func finish() throws(CaptureError) {
        inputFinished = true
        try converter.finish { samples, count in
            pending.append(contentsOf: UnsafeBufferPointer(start: samples, count: count * channels))
        }
    }

    /// The next block, if its output is all there: its output frames and the file frames
    /// [position, endPosition) it plays.
    func readyBlock() -> (frames: Int, position: Int64, endPosition: Int64)? {
        while let pass = passes.first {
            let toEnd = pass.outputEnd - placedFrames
            if toEnd <= 0 && passes.count > 1 {
                passes.removeFirst()
                continue
            }
            let frames = VarispeedSegment.nextBlockFrames(pendingFrames: pendingFrames, toPassEnd: toEnd,
                                                          blockFrames: PlaybackRing.blockFrames)
            guard frames > 0 else { return nil }
            return (frames, pass.filePosition(atOutput: placedFrames), pass.filePosition(atOutput: placedFrames + Int64(frames)))
        }
        return nil
    }

    /// Every frame of the stream is in a block: the end block is next.
    var isDrained: Bool {
        guard inputFinished, pending.isEmpty, let last = passes.last else { return false }
        return placedFrames >= last.outputEnd
    }

    /// Moves the first `frames` pending frames (a `readyBlock`) to `destination`.
    func takeBlock(frames: Int, into destination: UnsafeMutablePointer<Float>) {
        let count = frames * channels
        pending.withUnsafeBufferPointer { destination.update(from: $0.baseAddress!, count: count) }
        pending.removeFirst(count)
        placedFrames += Int64(frames)
    }
}
