import ArgumentParser

/// `--server`: the JACK server every command that touches JACK talks to.
struct ServerOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("JACK server name (default: $JACK_DEFAULT_SERVER or the default server).", valueName: "name"))
    var server: String?
}
