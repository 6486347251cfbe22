import JackCapture

/// What jcap prints for a library error: the library's description of the problem, with the
/// command-line advice added (the flag to use or to drop, the tool to ask). Always one line.
enum CommandLineAdvice {
    static func message(for error: CaptureError) -> String {
        switch error {
        case .jack(let error):
            return message(for: error)
        case .noSuchChannel(_, available: 0):
            return "\(error) (use --port)"
        case .noPortMatches:
            return "\(error) ('jcap ports' lists them)"
        case .noInputPortMatches:
            // `jcap ports` lists what can be recorded from, not what can be played to.
            return "\(error) (use --channels for the physical playback ports)"
        case .outputExists:
            return "\(error) (use --overwrite to replace it)"
        case .format(let error):
            return message(for: error)
        case .badTriggerLevel(let text):
            return message(for: .refusedValue(flag: "--trigger", value: text, error))
        case .triggerLevelOutOfRange(let decibels):
            return message(for: .refusedValue(flag: "--trigger", value: "\(decibels)dB", error))
        default:
            return error.description
        }
    }

    /// jcap's own errors: a flag's value, as the user typed it, and what it should be.
    static func message(for error: CommandLineError) -> String {
        switch error {
        case .badOption(let flag, let value, let expected):
            "bad \(flag) '\(value)': use \(expected)"
        case .refusedValue(let flag, let value, .badDuration(_, let reason)):
            "bad \(flag) '\(value)': \(reason)"
        case .refusedValue(let flag, let value, .badTriggerLevel):
            "bad \(flag) '\(value)': use a level in dBFS, like -40dB"
        case .refusedValue(let flag, let value, .triggerLevelOutOfRange):
            "bad \(flag) '\(value)': use a level from -160dB to 0dB"
        case .refusedValue("--connect", let value, .noInputPortMatches):
            // `jcap timecode`'s destination: on a NetJACK2 master, a slave's link input.
            "bad --connect '\(value)': no JACK input port matches it (a slave's link inputs are named like slave1:to_slave_1)"
        case .refusedValue(let flag, let value, let error):
            "bad \(flag) '\(value)': \(message(for: error))"
        }
    }

    static func message(for error: PlayerError) -> String {
        if case .capture(let capture) = error { return message(for: capture) }
        return error.description
    }

    /// Any error jcap reports, with its advice.
    static func message(for error: any Error) -> String {
        switch error {
        case let error as CommandLineError: message(for: error)
        case let error as CaptureError: message(for: error)
        case let error as StudioSessionError: message(for: error)
        case let error as PlayerError: message(for: error)
        case let error as JackError: message(for: error)
        case let error as ControlError: message(for: error)
        default: "\(error)"
        }
    }

    static func message(for error: StudioSessionError) -> String {
        switch error {
        case .capture(let error): message(for: error)
        case .takesNeedLength: "\(error) (add --for)"
        case .badTakeCount(let count): "bad --takes '\(count)': use \(count < 1 ? "1 or more" : "at most \(SessionTake.mostTakesBackToBack)")"
        case .splitWithSeveralTakes(let count): "bad --takes '\(count)': use 1 with --split (each segment of a split is a take)"
        case .splitNeedsScheduledStart: "\(error) (drop --split, or --transport and --trigger)"
        case .overdubNeedsLatencyAlignment: "\(error) (or --align-latency)"
        case .playback(let error): message(for: error)
        default: error.description
        }
    }

    static func message(for error: ControlError) -> String {
        switch error {
        case .capture(let error): message(for: error)
        case .session(let error): message(for: error)
        case .player(let error): message(for: error)
        }
    }

    static func message(for error: JackError) -> String {
        switch error {
        case .noServer(let server):
            let start = server.map { "jackd -n \($0) -d dummy" } ?? "jackd -d alsa (or: tools/jackd-private start)"
            return "\(error); start one, e.g. '\(start)'"
        case .clientNamedLikeServer:
            return "\(error) (choose another --name)"
        default:
            return error.description
        }
    }

    static func message(for error: FormatError) -> String {
        switch error {
        case .noAACEncoder:
            return "jcap cannot write AAC: libsndfile has no AAC encoder (use --format alac with .caf, or --format mp3/opus/vorbis)"
        case .unknownFormat(let name) where ["aac", "m4a"].contains(name.lowercased()):
            return message(for: .noAACEncoder)
        case .bitDepthNotAvailable(let format, _, let allowed):
            // 8-bit FLAC is legal but hardly what anyone recording wants suggested.
            let suggestion = allowed.filter { format != "FLAC" || $0 >= 16 }.map(String.init)
            let otherwise = switch format {
            case "float": ", or --format pcm"
            case "FLAC": ", or a .wav/.caf file"
            default: ""
            }
            return "\(error) (use --bit-depth \(suggestion.joinedAsPhrase())\(otherwise))"
        case .bitDepthNotApplicable(_, let requested):
            return "\(error) (drop --bit-depth \(requested), or use --format pcm or flac)"
        case .endiannessNotApplicable:
            return "\(error) (drop --endian)"
        case .endiannessNotAvailable(let endianness, let format, let containers):
            let elsewhere = containers.isEmpty ? "" : ", or use a \(containers.map { "." + $0 }.joinedAsPhrase()) file"
            return "\(format) is not written \(endianness.rawValue)-endian (drop --endian\(elsewhere))"
        case .qualityNotApplicable(let format):
            let flac = format == "FLAC" ? "; FLAC has --compression-level 0-8" : ""
            return "--quality applies to mp3, vorbis and opus, not \(format) (drop --quality\(flac))"
        case .qualityOutOfRange(let quality):
            return "--quality \(quality) is out of range (use 0 for the smallest file to 1 for the best quality)"
        case .compressionLevelNotApplicable(let format):
            return "--compression-level applies to FLAC, not \(format) (drop it; lossy codecs take --quality 0-1)"
        case .compressionLevelOutOfRange(let level):
            return "--compression-level \(level) is out of range (use 0, fastest, to 8, smallest)"
        case .sampleRateNotAvailable(let rate, let format, let allowed):
            return "\(format) cannot be written at \(rate) Hz (use --rate \(allowed), or PCM/FLAC for other rates)"
        default:
            return error.description
        }
    }
}
