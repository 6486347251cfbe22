/// Unbuffered writes to the standard streams (write(2)), for the command-line tools: messages
/// appear at once, in order, even when the process is killed right after.
package enum StandardStreams {
    package static func writeError(_ text: String) { write(text, to: STDERR_FILENO) }
    package static func writeOutput(_ text: String) { write(text, to: STDOUT_FILENO) }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
