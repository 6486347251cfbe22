import JackCapture

/// `--name`, the JACK client name, checked before JACK is asked: JACK refuses an empty name or
/// one longer than jack_client_name_size() allows with a bare status code, and takes ':' (which
/// separates client and port in a full port name) into names no port pattern can address.
enum ClientNameOption {
    /// jack_client_name_size() less its terminating NUL.
    static let maximumBytes = 63

    /// - Throws: `CommandLineError.badOption` (status 64) naming the limit and the characters.
    static func check(_ name: String) throws(CommandLineError) {
        let fits = !name.isEmpty && name.utf8.count <= maximumBytes
        let clean = !name.unicodeScalars.contains { $0 == ":" || $0.properties.generalCategory == .control }
        guard fits && clean else {
            let shown = name.unicodeScalars.map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }.joined()
            throw .badOption(flag: "--name", value: shown,
                             expected: "a JACK client name of 1 to \(maximumBytes) bytes, without ':' or control characters"
                                + (fits ? "" : " (it is \(name.utf8.count) bytes)"))
        }
    }
}
