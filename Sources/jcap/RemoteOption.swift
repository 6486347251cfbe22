import ArgumentParser
import JackCapture
import JackCaptureRemote

/// `--remote [ADDRESS:]PORT` and `--remote-token`: `jcap session`'s browser remote (or the
/// session file's `[remote]`, which the options override).
struct RemoteOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Serve the browser remote on [ADDRESS:]PORT: 8080 (this machine only, 127.0.0.1), 0.0.0.0:8080 (every network). Prints the URL to open, its token included. As [remote] in the session file.", valueName: "[address:]port"))
    var remote: String?

    @Option(name: .long, help: ArgumentHelp("The token every request to the browser remote must carry (letters, digits, - . _ ~; at least 8). Default: a new random one (128 bits) each run.", valueName: "token"))
    var remoteToken: String?

    /// The flags' values checked, before anything is opened.
    func check() throws(CommandLineError) {
        if let remote {
            do { _ = try WebRemoteAddress(parsing: remote) } catch {
                throw .badOption(flag: "--remote", value: remote, expected: Self.reason(error))
            }
        }
        if let remoteToken {
            do { _ = try WebRemoteToken(remoteToken) } catch {
                throw .badOption(flag: "--remote-token", value: remoteToken, expected: Self.reason(error))
            }
        }
    }

    /// The remote the flags or `definition`'s `[remote]` ask for, listening; nil when neither does.
    /// Prints the URL to open (the token in it) through `console`.
    func start(for definition: SessionDefinition, takeLog: TakeLog, console: Console) throws -> WebRemote? {
        let fromFile = definition.remote
        let address: WebRemoteAddress
        if let remote {
            address = try WebRemoteAddress(parsing: remote)
        } else if let fromFile {
            address = WebRemoteAddress(host: fromFile.address ?? WebRemoteAddress.defaultHost, port: fromFile.port)
        } else {
            if let remoteToken {
                throw CommandLineError.badOption(flag: "--remote-token", value: remoteToken,
                                                 expected: "--remote (or [remote] in the session file) too")
            }
            return nil
        }
        let token: WebRemoteToken
        if let remoteToken {
            token = try WebRemoteToken(remoteToken)
        } else if let given = fromFile?.token {
            do { token = try WebRemoteToken(given) } catch {
                throw StudioSessionError.sessionFile(definition.error(remoteKey: "token", Self.reason(error)))
            }
        } else {
            token = .random()
        }
        let surface = try WebRemote(address: address, token: token, takeLog: takeLog) { console.line("jcap: " + $0) }
        let url = try surface.start()
        console.line("jcap: browser remote: \(url)")
        if !address.isLoopback {
            console.line("jcap: the remote is open to the network: anyone with this URL controls the session")
        }
        return surface
    }

    /// What a `WebRemoteError` says after its subject.
    private static func reason(_ error: WebRemoteError) -> String {
        switch error {
        case .badAddress(_, let reason), .badToken(let reason), .cannotListen(_, let reason): reason
        case .pageMissing: error.description
        }
    }
}
