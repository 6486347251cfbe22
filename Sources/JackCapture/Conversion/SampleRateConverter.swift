import CSamplerate

/// Converts interleaved float frames from one sample rate to another: a thin wrapper over
/// libsamplerate's full API (src_new, src_process, src_reset, src_delete), used by the disk
/// writer, never by the JACK process thread.
///
/// The total length is exact: however the input is split into calls, `inputFrames` frames in
/// become `outputLength(forInputFrames:)` = round(inputFrames × outputRate / inputRate) frames
/// out (halves round up), so N seconds recorded are N seconds in the file. libsamplerate alone
/// does not promise that: with end_of_input it emits one output frame for every output instant
/// that falls inside the input, which is sometimes one more than the rounded length (measured
/// with 0.2.2: 1000 frames at 44.1 kHz become 1089 frames at 48 kHz, not 1088; the zero-order
/// hold at 48→96 kHz always gives 2n + 1), and it may run one frame ahead of the rounded length
/// while streaming. So the converter
/// - holds back whatever would take the output past round(input so far × ratio) (at most a frame
///   or two, kept at the start of its output buffer) until more input allows it;
/// - at `finish`, drains the filter's tail (src_process with end_of_input until it produces
///   nothing), drops any frame past the rounded length, and pads with silence if libsamplerate
///   produced fewer (it never has in measurement; the padding keeps the length exact anyway).
/// Output frame k is the input at instant k / ratio: libsamplerate's sinc filters are centred, so
/// nothing is delayed, and a span at input frames [a, b) lands at output frames
/// [round(a × ratio), round(b × ratio)).
///
/// Every buffer is allocated once, in `init`; `convert` and `finish` allocate nothing.
package final class SampleRateConverter {
    package let channels: Int
    package let inputRate: Int
    package let outputRate: Int
    package let quality: SampleRateConverterQuality
    /// outputRate / inputRate: libsamplerate's src_ratio.
    package let ratio: Double

    /// Input frames converted so far (since `init` or `reset()`).
    package private(set) var inputFrames: Int64 = 0
    /// Output frames handed out so far.
    package private(set) var outputFrames: Int64 = 0

    /// The `SRC_STATE *`.
    private let state: OpaquePointer
    /// The rates divided by their greatest common divisor, for exact rounding in integers.
    private let reducedInputRate: Int64
    private let reducedOutputRate: Int64
    /// Where src_process writes; the first `heldFrames` frames are output held back from an
    /// earlier call.
    private let output: UnsafeMutablePointer<Float>
    private let outputCapacityFrames: Int
    private var heldFrames = 0
    /// Silence to convert for `convertSilence` and to pad the end with: never written to.
    private let zeros: UnsafeMutablePointer<Float>
    private let zeroFrames: Int
    private var finished = false

    /// Creates a converter (src_new) for `channels` interleaved channels.
    ///
    /// Throws `.sampleRateConversion` for a rate that is not positive, a ratio beyond
    /// libsamplerate's 1:256 to 256:1 (src_is_valid_ratio), fewer than one channel, or whatever
    /// src_new refuses (with src_strerror's message).
    package convenience init(channels: Int, inputRate: Int, outputRate: Int,
                            quality: SampleRateConverterQuality = .best) throws(CaptureError) {
        try self.init(channels: channels, inputRate: inputRate, outputRate: outputRate, converterType: quality.rawValue)
    }

    /// src_new with any converter type, so tests can make libsamplerate itself refuse one.
    init(channels: Int, inputRate: Int, outputRate: Int, converterType: Int32) throws(CaptureError) {
        guard inputRate > 0, outputRate > 0 else {
            throw .sampleRateConversion(inputRate: inputRate, outputRate: outputRate,
                                        reason: "a sample rate must be a positive number of Hz")
        }
        let ratio = Double(outputRate) / Double(inputRate)
        guard src_is_valid_ratio(ratio) != 0 else {
            throw .sampleRateConversion(inputRate: inputRate, outputRate: outputRate,
                                        reason: "libsamplerate converts at most 256:1 either way")
        }
        // Checked here: libsamplerate 0.2.2's sinc converters assert (abort the process) on a
        // channel count below 1 instead of returning SRC_ERR_BAD_CHANNEL_COUNT.
        guard channels >= 1 else {
            throw .sampleRateConversion(inputRate: inputRate, outputRate: outputRate,
                                        reason: "a converter needs at least one channel, not \(channels)")
        }
        var error: Int32 = 0
        guard let state = src_new(converterType, Int32(clamping: channels), &error) else {
            throw .sampleRateConversion(inputRate: inputRate, outputRate: outputRate,
                                        reason: Self.message(forCode: error))
        }
        guard let quality = SampleRateConverterQuality(rawValue: converterType) else {
            src_delete(state)
            throw .sampleRateConversion(inputRate: inputRate, outputRate: outputRate,
                                        reason: "libsamplerate converter \(converterType) is not one jcap knows")
        }
        self.state = state
        self.channels = channels
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.quality = quality
        self.ratio = ratio
        let divisor = Self.greatestCommonDivisor(inputRate, outputRate)
        reducedInputRate = Int64(inputRate / divisor)
        reducedOutputRate = Int64(outputRate / divisor)
        // Room for what one writer batch (at most 8192 frames, about 1 MB) becomes, within 4 MB:
        // a larger call is converted in several src_process calls, never by allocating.
        let frameBytes = channels * MemoryLayout<Float>.stride
        let batchFrames = max(256, min(8_192, (1 << 20) / frameBytes))
        let wanted = Int((Double(batchFrames) * max(1, ratio)).rounded(.up)) + 16
        outputCapacityFrames = max(64, min(wanted, (4 << 20) / frameBytes))
        output = .allocate(capacity: outputCapacityFrames * channels)
        output.initialize(repeating: 0, count: outputCapacityFrames * channels)
        zeroFrames = max(64, min(4_096, (256 << 10) / frameBytes))
        zeros = .allocate(capacity: zeroFrames * channels)
        zeros.initialize(repeating: 0, count: zeroFrames * channels)
    }

    deinit {
        src_delete(state)
        output.deallocate()
        zeros.deallocate()
    }

    /// Output frames that `inputFrames` input frames become: round(inputFrames × outputRate /
    /// inputRate), halves rounded up. Exact in 64-bit integers while inputFrames × outputRate
    /// stays below 2^62: nearly four years of input at 192 kHz.
    /// 0 when a rate is not positive (no conversion exists).
    package static func outputLength(forInputFrames inputFrames: Int64, inputRate: Int, outputRate: Int) -> Int64 {
        guard inputRate > 0, outputRate > 0 else { return 0 }
        let divisor = greatestCommonDivisor(inputRate, outputRate)
        return roundedLength(inputFrames, Int64(inputRate / divisor), Int64(outputRate / divisor))
    }

    /// `outputLength(forInputFrames:inputRate:outputRate:)` at this converter's rates.
    package func outputLength(forInputFrames inputFrames: Int64) -> Int64 {
        Self.roundedLength(inputFrames, reducedInputRate, reducedOutputRate)
    }

    /// Converts `frames` interleaved input frames (src_process, end_of_input 0), handing the
    /// output to `emit` as interleaved frames, in zero or more pieces; each pointer is valid only
    /// during its call. The filter needs input on both sides of each output frame, so the output
    /// lags the input until `finish` (measured with 0.2.2 at 48→44.1 kHz: 143 output frames for
    /// `.best`, 46 for `.medium`, 19 for `.fastest`, none for the other two).
    package func convert(_ input: UnsafePointer<Float>, frames: Int,
                        emit: (UnsafePointer<Float>, Int) throws(CaptureError) -> Void) throws(CaptureError) {
        guard !finished else {
            throw .sampleRateConversion(inputRate: inputRate, outputRate: outputRate,
                                        reason: "the stream is finished: call reset() before converting more")
        }
        var consumed = 0
        while consumed < frames {
            let (used, generated) = try process(input + consumed * channels, frames: frames - consumed, endOfInput: false)
            consumed += used
            inputFrames += Int64(used)
            try release(upTo: outputLength(forInputFrames: inputFrames), emit: emit)
            if used == 0 && generated == 0 {
                throw failure("libsamplerate took no input and gave no output")
            }
        }
    }

    /// Converts `frames` frames of silence, as `convert` would, without a buffer of zeros from
    /// the caller.
    package func convertSilence(frames: Int,
                               emit: (UnsafePointer<Float>, Int) throws(CaptureError) -> Void) throws(CaptureError) {
        var remaining = frames
        while remaining > 0 {
            let count = min(remaining, zeroFrames)
            try convert(zeros, frames: count, emit: emit)
            remaining -= count
        }
    }

    /// Ends the input: drains the filter's tail (src_process with end_of_input 1, until it gives
    /// nothing more) and hands `emit` the rest of the output, trimmed or padded with silence to
    /// exactly `outputLength(forInputFrames: inputFrames)` frames in all. After this the
    /// converter takes no more input until `reset()`.
    package func finish(emit: (UnsafePointer<Float>, Int) throws(CaptureError) -> Void) throws(CaptureError) {
        guard !finished else {
            throw .sampleRateConversion(inputRate: inputRate, outputRate: outputRate,
                                        reason: "the stream is already finished: call reset() to start another")
        }
        finished = true
        let length = outputLength(forInputFrames: inputFrames)
        while true {
            // No input: only a valid pointer that does not overlap the output (src_process checks).
            let (_, generated) = try process(zeros, frames: 0, endOfInput: true)
            try release(upTo: length, emit: emit)
            // Past the rounded length: libsamplerate's extra tail frame, dropped.
            heldFrames = 0
            if generated == 0 { break }
        }
        while outputFrames < length {
            let count = Int(min(length - outputFrames, Int64(zeroFrames)))
            try emit(zeros, count)
            outputFrames += Int64(count)
        }
    }

    /// Starts a new stream (src_reset): clears the filter's history and the frame counts.
    package func reset() {
        src_reset(state)
        inputFrames = 0
        outputFrames = 0
        heldFrames = 0
        finished = false
    }

    // MARK: Internals

    /// One src_process call writing after the held frames; returns input frames used and output
    /// frames generated.
    private func process(_ input: UnsafePointer<Float>, frames: Int,
                         endOfInput: Bool) throws(CaptureError) -> (used: Int, generated: Int) {
        var data = SRC_DATA()
        data.data_in = input
        data.input_frames = frames
        data.data_out = output + heldFrames * channels
        data.output_frames = outputCapacityFrames - heldFrames
        data.end_of_input = endOfInput ? 1 : 0
        data.src_ratio = ratio
        let error = src_process(state, &data)
        guard error == 0 else { throw failure(Self.message(forCode: error)) }
        let generated = data.output_frames_gen
        heldFrames += generated
        return (data.input_frames_used, generated)
    }

    /// Hands `emit` the held frames that keep the output within `limit` frames in all, and keeps
    /// the rest at the start of the buffer.
    private func release(upTo limit: Int64,
                         emit: (UnsafePointer<Float>, Int) throws(CaptureError) -> Void) throws(CaptureError) {
        let count = Int(max(0, min(Int64(heldFrames), limit - outputFrames)))
        if count > 0 {
            try emit(output, count)
            outputFrames += Int64(count)
        }
        let kept = heldFrames - count
        if kept > 0 && count > 0 {
            // copyMemory is memmove: the regions may overlap.
            UnsafeMutableRawPointer(output).copyMemory(from: output + count * channels,
                                                       byteCount: kept * channels * MemoryLayout<Float>.stride)
        }
        heldFrames = kept
    }

    private func failure(_ reason: String) -> CaptureError {
        .sampleRateConversion(inputRate: inputRate, outputRate: outputRate, reason: reason)
    }

    /// libsamplerate's message for an error code (src_strerror), without its closing full stop.
    static func message(forCode code: Int32) -> String {
        guard let text = src_strerror(code) else { return "libsamplerate error \(code)" }
        var message = String(cString: text)
        if message.hasSuffix(".") { message.removeLast() }
        return "libsamplerate: \(message)"
    }

    private static func roundedLength(_ inputFrames: Int64, _ reducedInputRate: Int64, _ reducedOutputRate: Int64) -> Int64 {
        let (twice, overflow1) = inputFrames.multipliedReportingOverflow(by: 2)
        let (product, overflow2) = twice.multipliedReportingOverflow(by: reducedOutputRate)
        let (sum, overflow3) = product.addingReportingOverflow(reducedInputRate)
        // Beyond 2^62 (years of audio): saturated rather than trapping.
        guard !overflow1, !overflow2, !overflow3 else { return inputFrames < 0 ? .min : .max }
        return sum / (2 * reducedInputRate)
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}
