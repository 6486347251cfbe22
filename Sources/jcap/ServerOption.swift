import ArgumentParser

/// `--server`: the JACK server every command that touches JACK talks to.
struct ServerOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("JACK server name (default: $JACK_DEFAULT_SERVER if set, else 'default').", valueName: "name"))
    var server: String?
}
