/// How a command went, for a surface that answers whoever sent it (`ControlCore.answer(_:from:)`).
public enum ControlAnswer: Equatable, Sendable {
    /// Carried out.
    case done
    /// It does not apply now.
    case refused(ControlRefusal)
    /// Tried, and failed (the same error the core told as an `.error` event).
    case failed(ControlError)
}
