/// What a `CaptureClient` under a `ControlCore` records: one take, or take after take (with
/// `followsTransport` or a `triggerLevel` in its configuration) until `quit`.
package struct RecordingPlan: Sendable {
    /// Take after take: each one's file numbered after `outputPath` (never overwriting).
    package var takeAfterTake: Bool

    package init(takeAfterTake: Bool) {
        self.takeAfterTake = takeAfterTake
    }

    /// One take, or take after take when the configuration waits for the transport or sound.
    package init(configuration: CaptureConfiguration) {
        takeAfterTake = configuration.followsTransport || configuration.triggerLevel != nil
    }
}
