import JackCapture

/// A command-line flag jcap cannot use: its value does not parse, is out of its range, or does
/// not go with the other flags given. The library never sees flags; only jcap throws this
/// (exit status 64, `ExitStatus.usage`).
enum CommandLineError: Error, Equatable, CustomStringConvertible {
    case badOption(flag: String, value: String, expected: String)
    /// The library refused `value`, given after `flag` (a split interval, a trigger level): its
    /// error, told with the flag (`CommandLineAdvice`); the exit status is the library error's.
    case refusedValue(flag: String, value: String, CaptureError)

    var description: String { CommandLineAdvice.message(for: self) }
}
