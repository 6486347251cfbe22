import ArgumentParser

/// `--meter`: how every command that records or plays shows what its ports carry.
struct MeterOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Live meter of each port: bars (folding into columns when needed), compact, none, or json lines on standard output. Default: bars on a terminal, a plain status line a second otherwise.", valueName: "style"))
    var meter: MeterDisplay?
}
