/// Who sent a command, when it matters to what is said: a stop from a signal is told as an
/// interruption.
public enum ControlOrigin: Equatable, Sendable {
    /// A key, a pipe, a program.
    case surface
    /// SIGINT (Ctrl-C).
    case interrupt
    /// SIGTERM.
    case terminate
}
