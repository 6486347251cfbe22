/// How a session's names become JACK names and file names. Each rule changes only what the
/// target forbids or hides, so an engineer still recognises every name in qjackctl and in the
/// take folder.
enum SessionNaming {
    /// JACK's jack_client_name_size(): a client name with its terminating NUL.
    static let jackClientNameSize = 64
    /// JACK's jack_port_name_size() as JACK 1 and the JACK API document it: a full port name
    /// ("client:port") with its terminating NUL. (JACK 2 allows a little more; a session made for
    /// one server should work on the other.)
    static let jackPortNameSize = 256
    /// What JACK adds to a client name that is taken ("band" becomes "band-01"); jcap's clients
    /// are made unique that way, so a session's name and port names leave room for it.
    static let jackUniqueSuffixLength = 3
    /// The longest session name in bytes: one JACK can still make unique when it is taken.
    static let maximumClientNameBytes = jackClientNameSize - 1 - jackUniqueSuffixLength
    /// The longest file name most file systems take (NAME_MAX), in bytes.
    static let maximumFileNameBytes = 255
    /// Take numbers a session's file names leave room for: six digits, take 999,999.
    static let takeNumberDigitsReserved = 6

    /// A track's JACK port name: the name as it is, but ':' (which separates client and port in
    /// a full port name) becomes '-', and the name is cut, whole characters at a time, so that
    /// "client:port" fits JACK's port name size even with a taken client name made unique.
    static func portName(forTrack name: String, clientName: String) -> String {
        let replaced = String(name.map { $0 == ":" ? "-" : $0 })
        let available = jackPortNameSize - 1 - (clientName.utf8.count + jackUniqueSuffixLength) - 1
        return prefix(of: replaced, maximumBytes: max(1, available))
    }

    /// A name as a file-system-safe file name part: '/', NUL and the other control characters
    /// become '_', and so does a leading '.', which would hide the file (or make it '..').
    static func fileSystemSafe(_ name: String) -> String {
        var safe = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            safe.append(scalar == "/" || scalar.isControlCharacter ? "_" : scalar)
        }
        if safe.first == "." { safe.replaceSubrange(safe.startIndex...safe.startIndex, with: ["_"]) }
        return String(safe)
    }

    /// Two names give the same file name on some file system where they differ only in case
    /// (macOS, Windows, a FAT card): compared as this key.
    static func fileNameKey(_ name: String) -> String {
        fileSystemSafe(name).lowercased()
    }

    /// The most bytes a track or group name may have as a file name part, for the take file
    /// names `take-NNNNNN-<name>.<extension>` to fit `maximumFileNameBytes`.
    static func maximumLabelBytes(fileExtension: String) -> Int {
        maximumFileNameBytes - TakeNaming.prefix.utf8.count - takeNumberDigitsReserved - 1 - 1 - fileExtension.utf8.count
    }

    /// A take number padded to three digits (more when larger), as jcap's own take names.
    static func paddedNumber(_ number: Int) -> String {
        let digits = String(number.magnitude)
        let padded = String(repeating: "0", count: max(0, 3 - digits.count)) + digits
        return number < 0 ? "-" + padded : padded
    }

    /// The longest prefix of `text`, in whole characters, of at most `maximumBytes` UTF-8 bytes.
    static func prefix(of text: String, maximumBytes: Int) -> String {
        guard text.utf8.count > maximumBytes else { return text }
        var result = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            guard bytes + size <= maximumBytes else { break }
            result.append(character)
            bytes += size
        }
        return result
    }
}
