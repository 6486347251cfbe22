/// Rate (varispeed).
extension Player {
    /// The resampler for `rate` and for files at another rate than the server's (libsamplerate's
    /// converters, as recording's `converterQuality`): `.best` unless set. Set it before
    /// `prepareToPlay`; later changes count for nothing. A lower quality costs the reader less
    /// (for many channels at a rate).
    public var converterQuality: SampleRateConverterQuality {
        get { control.withLock { $0.quality } }
        set { control.withLock { $0.quality = newValue } }
    }

    /// Whether `rate` applies, as AVAudioPlayer's `enableRate`: set it before `prepareToPlay`
    /// (or the first `play`); a change after that counts for nothing. Off by default.
    public var enableRate: Bool {
        get { control.withLock { $0.rateEnabled } }
        set { control.withLock { $0.rateEnabled = newValue } }
    }

    /// The playback rate, 0.5 (half speed) ... 2 (double speed), clamped as AVAudioPlayer clamps
    /// it, kept to 1/10 000 (1.23456 is 1.2346); 1 by default. Applies only with `enableRate`.
    /// Varispeed: pitch follows, as on tape (2 is an octave up). A file of F frames plays
    /// round(F / rate) frames; positions stay in the file's frames.
    ///
    /// Changed while prepared, it takes effect as a seek to the frame playing now: the reader
    /// restarts its converters there at the new rate, so while playing the frames already on
    /// the rings are dropped and a short silence (the reader catching up, typically a few ms;
    /// not counted as an underrun) comes before the file continues from that frame. The frame is
    /// the one due when the callback takes the change (it tells the reader), so no frame plays
    /// twice and none is skipped.
    public var rate: Float {
        get { control.withLock { $0.playbackRate.value } }
        set {
            let durationFrames = durationFrames
            control.withLock { control -> Butler? in
                let changed = PlaybackRate(newValue)
                guard changed != control.playbackRate else { return nil }
                control.playbackRate = changed
                guard control.preparedWithRate, let state = control.state else { return nil }
                // While playing, from the frame the callback is at when it takes the seek (the
                // position read here would be a cycle or more behind by then); while not, from
                // where it stands.
                let here = control.playRequested ? SeekRequest.fromPlayingFrame : control.position(durationFrames: durationFrames)
                // The rate before the seek that makes the reader read it (released with the seek).
                state.pointee.rateTenThousandths.store(changed.tenThousandths, ordering: .relaxed)
                return control.seek(to: here)
            }?.wake()
        }
    }

    /// The lowest and highest `rate`.
    public static var rateRange: ClosedRange<Float> { PlaybackRate.range }

    /// The JACK server's sample rate, once prepared: the rate the ports play at.
    public var deviceSampleRate: Int? { control.withLock { $0.serverRate } }
}
