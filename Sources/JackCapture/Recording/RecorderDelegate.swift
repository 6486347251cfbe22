/// What a `Recorder` tells its delegate, in order, on the recorder's event thread. Every method
/// has an empty default: implement the ones you need.
public protocol RecorderDelegate: AnyObject, Sendable {
    /// The take ended: stopped, reached its length, or cut short. `successfully` is true when
    /// every frame asked for is in the file; `recorder.finalReport` says what happened otherwise
    /// (frames lost to overruns, the server gone, a sample-rate change, a failed disk).
    func recorderDidFinishRecording(_ recorder: Recorder, successfully: Bool)
    /// Writing the file failed (a full disk, an I/O error): the take ends, and what was written
    /// before is in the file.
    func recorderEncodeErrorDidOccur(_ recorder: Recorder, error: CaptureError)
    /// Something outside the recorder cut into the take: a source went away, the server shut
    /// down, or its sample rate changed.
    func recorderBeginInterruption(_ recorder: Recorder, _ interruption: RecorderInterruption)
    /// An interruption is over: a disconnected channel has a source again.
    func recorderEndInterruption(_ recorder: Recorder, _ interruption: RecorderInterruption)
    /// Every event of the take, with its frame: start, pause, resume, stop, overrun, xrun,
    /// connection, period change.
    func recorder(_ recorder: Recorder, didReceive event: CaptureEvent)
}

extension RecorderDelegate {
    public func recorderDidFinishRecording(_ recorder: Recorder, successfully: Bool) {}
    public func recorderEncodeErrorDidOccur(_ recorder: Recorder, error: CaptureError) {}
    public func recorderBeginInterruption(_ recorder: Recorder, _ interruption: RecorderInterruption) {}
    public func recorderEndInterruption(_ recorder: Recorder, _ interruption: RecorderInterruption) {}
    public func recorder(_ recorder: Recorder, didReceive event: CaptureEvent) {}
}
