import ArgumentParser
import Foundation
import JackCapture
import JackCaptureRemote

/// `jcap session` under an NSM session manager (`NSM_URL` set, as nsmd, RaySession and Agordejo
/// start their clients): announces jcap, waits for the manager's `open`, and makes the session
/// it names (its folder, its client id as the JACK client name; the command line's session file
/// only as the template of a new one). Then the session runs as any other, the manager one more
/// surface (`NSMSurface`). When the manager switches sessions (`:switch:`), the command runs again
/// (`runSwitching`) on the same connection, opening the session asked for.
struct SessionManagerLaunch {
    let client: NSMClient
    let folder: NSMSessionFolder
    let definition: SessionDefinition

    /// The manager's connection, kept for every session of the run: the manager knows jcap by
    /// its port. Touched by the main thread only.
    nonisolated(unsafe) private static var connected: NSMClient?
    /// The surface of the session running now, whose `switchRequest` says what to open next.
    nonisolated(unsafe) private static var surface: NSMSurface?
    /// The open a switch asked for, for the next run's `open`.
    nonisolated(unsafe) private static var pendingSwitch: NSMOpenRequest?

    /// The process's one `ControlSignals`, for every run of the command: a second one would never
    /// see a signal (libdispatch hands each to the first source made for it, kept for good).
    nonisolated(unsafe) private static var processSignals: ControlSignals?

    static func signals() -> ControlSignals {
        if let processSignals { return processSignals }
        let made = ControlSignals()
        processSignals = made
        return made
    }

    /// Runs the command (`run`) and, each time the manager switched sessions while it ran, again:
    /// the worst exit status of the runs at the end.
    static func runSwitching(_ run: () throws -> Void) throws {
        // nil until a switch: a run that never switched ends as the command alone would.
        var worst: ExitStatus?
        while true {
            surface = nil
            do {
                try run()
            } catch let code as ExitCode where surface?.switchRequest != nil || worst != nil {
                worst = .worst(worst ?? .success, ExitStatus(rawValue: code.rawValue) ?? .failure)
            }
            // A SIGTERM that came with the switch ends jcap: the manager is quitting it.
            guard let request = surface?.switchRequest, processSignals?.stopSignal == nil else { break }
            worst = worst ?? .success
            pendingSwitch = request
        }
        if let worst, worst != .success { throw ExitCode(worst.rawValue) }
    }

    /// The command line, but `jcap` alone with NSM_URL set is `jcap session`: a manager starts
    /// its clients by their executable's name (`X-NSM-Exec=jcap`), with no arguments.
    static func arguments(_ arguments: [String] = CommandLine.arguments,
                          environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let given = Array(arguments.dropFirst())
        guard given.isEmpty, let url = environment["NSM_URL"], !url.isEmpty else { return given }
        return ["session"]
    }

    /// The manager `NSM_URL` names; nil when it is unset or empty (no session management). An
    /// NSM_URL that is not an OSC URL is said and ignored, as the API asks.
    static func manager(environment: [String: String] = ProcessInfo.processInfo.environment,
                        console: Console) throws -> NSMClient? {
        if let connected { return connected }
        guard let url = environment["NSM_URL"], !url.isEmpty else { return nil }
        do {
            guard let client = try NSMClient(url: url) else {
                console.line("jcap: NSM_URL=\(url) is not an osc.udp:// URL: running without a session manager")
                return nil
            }
            connected = client
            return client
        } catch {
            throw fail(error, console: console)
        }
    }

    /// Announces jcap to `client`'s manager and waits for its `open`; nil when a stop signal came
    /// first (nothing was opened, so nothing to finish: jcap exits 0).
    static func open(_ client: NSMClient, template: String?, signals: ControlSignals,
                     console: Console) throws -> SessionManagerLaunch? {
        let stop = { signals.stopSignal != nil }
        let request: NSMOpenRequest
        if let switched = pendingSwitch {
            pendingSwitch = nil
            request = switched
            console.line("jcap: the session manager switched to session '\(request.displayName)' (\(request.path))")
        } else {
            do {
                guard try client.announce(executable: CommandLine.arguments.first ?? "jcap", stop: stop) else { return nil }
            } catch {
                throw fail(error, console: console)
            }
            console.line("jcap: under session manager \(client.managerName ?? "NSM") at \(client.url), waiting for a session")
            guard let opened = client.waitForOpen(stop: stop) else { return nil }
            request = opened
        }
        let folder = NSMSessionFolder(request)
        do {
            let definition = try folder.definition(template: template)
            return SessionManagerLaunch(client: client, folder: folder, definition: definition)
        } catch {
            if case .openFailed(let code, let message) = error { client.fail(NSMClient.Path.open, code, message) }
            throw fail(error, console: console)
        }
    }

    /// Tells the manager the session is open (its `/reply` to `open`) and gives the surface that
    /// answers it from now on.
    func opened(_ session: StudioSession) -> NSMSurface {
        client.reply(to: NSMClient.Path.open, "session '\(folder.request.displayName)' open: "
            + "\(session.definition.tracks.count) tracks, \(session.armedTrackNames.count) armed")
        let surface = NSMSurface(client: client, session: session, folder: folder)
        Self.surface = surface
        return surface
    }

    /// Tells the manager the session could not be opened (its `/error` to `open`), then fails
    /// as jcap fails for `error`.
    func refuse(_ error: StudioSessionError, console: Console) -> ExitCode {
        client.fail(NSMClient.Path.open, .createFailed, CommandLineAdvice.message(for: error))
        return console.fail(error)
    }

    /// The one-line error and exit status for an NSM failure: a session file that does not load
    /// is a bad session file (20); the manager refusing or not answering is status 28.
    private static func fail(_ error: NSMError, console: Console) -> ExitCode {
        console.endDisplay()
        console.line("jcap: error: \(error.description)")
        if case .openFailed(let code, _) = error {
            return ExitCode((code == .badProject || code == .createFailed ? ExitStatus.badSessionFile : .failure).rawValue)
        }
        return ExitCode(ExitStatus.sessionManagerFailed.rawValue)
    }
}
