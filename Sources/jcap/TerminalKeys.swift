/// Single keys from the terminal while recording: space toggles pause, `q` or Enter stops. Only
/// when standard input is a terminal; it is put in non-canonical mode without echo (so keys act
/// at once and print nothing) and restored by `restore()`.
final class TerminalKeys {
    enum Command: Equatable {
        case togglePause
        case stop
    }

    private var saved: termios?
    /// Reading keys from a pipe (a script driving a session), not a terminal.
    private var readsPipe = false

    /// With `readingPipes`, keys also come from standard input when it is a pipe or a file (read
    /// without blocking; its end is not a command, so a script's closed input stops nothing).
    init(readingPipes: Bool = false) {
        guard isatty(STDIN_FILENO) == 1 else {
            var info = stat()
            if readingPipes, fstat(STDIN_FILENO, &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO {
                _ = fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK)
                readsPipe = true
            }
            return
        }
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
        saved = settings
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        // VMIN 0, VTIME 0: read(2) returns at once with what has been typed, or nothing.
        withUnsafeMutableBytes(of: &settings.c_cc) { bytes in
            bytes[Int(VMIN)] = 0
            bytes[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    deinit { restore() }

    /// Keys come from a terminal.
    var isActive: Bool { saved != nil }

    /// The keys typed (or piped) since the last call.
    func keys() -> [UInt8] {
        guard saved != nil || readsPipe else { return [] }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        guard count > 0 else { return [] }
        return Array(buffer[..<count])
    }

    static func command(for key: UInt8) -> Command? {
        switch key {
        case UInt8(ascii: " "): .togglePause
        case UInt8(ascii: "q"), UInt8(ascii: "Q"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): .stop
        default: nil
        }
    }

    /// Gives the terminal back as it was.
    func restore() {
        guard var settings = saved else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        saved = nil
    }
}
