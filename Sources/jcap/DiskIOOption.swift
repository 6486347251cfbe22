import ArgumentParser
import JackCapture

/// `--io`: how take files are written (`DiskIO`), for `jcap` and `jcap session`.
struct DiskIOOption: ParsableArguments {
    @Option(name: .customLong("io"), help: ArgumentHelp("How files are written: auto (around the page cache with O_DIRECT where the file system and format allow it, else through it, saying so), direct (refuse where not) or buffered (default auto).", valueName: "mode"))
    var io: String?

    /// The mode asked for, nil when none; an unknown one is a bad option (64).
    func mode() throws(CommandLineError) -> DiskIO? {
        guard let io else { return nil }
        guard let mode = DiskIO(rawValue: io.lowercased()) else {
            throw .badOption(flag: "--io", value: io, expected: "auto, direct or buffered")
        }
        return mode
    }
}
