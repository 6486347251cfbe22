/// What a `CaptureClient` under a `ControlCore` records: one take, or take after take (with
/// `followsTransport` or a `triggerLevel` in its configuration) until `quit`.
public struct RecordingPlan: Sendable {
    /// Take after take: each one's file numbered after `outputPath` (never overwriting).
    public var takeAfterTake: Bool

    public init(takeAfterTake: Bool) {
        self.takeAfterTake = takeAfterTake
    }

    /// One take, or take after take when the configuration waits for the transport or sound.
    public init(configuration: CaptureConfiguration) {
        takeAfterTake = configuration.followsTransport || configuration.triggerLevel != nil
    }
}
