import ArgumentParser
import JackCapture

/// The options of takes that wait for something to start them (the transport, sound, or with a
/// pre-roll a session's record key), shared by `jcap` and `jcap session`.
struct WaitingTakeOptions: ParsableArguments {
    @Flag(name: .long, help: "Follow the JACK transport: each roll is a take, from the frame it starts rolling to the frame it stops (files numbered, never overwritten); Ctrl-C ends.")
    var transport = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Start each take on the first sample of any channel at or above this level (dBFS): -40dB. Each trigger is a new take; Ctrl-C ends.", valueName: "level"))
    var trigger: String?

    @Option(name: .long, help: ArgumentHelp("With --trigger: end a take after this long below the level (2s).", valueName: "duration"))
    var triggerStop: String?

    @Option(name: .long, help: ArgumentHelp("With --trigger or --transport (or a session's r key): keep this much before the trigger in the take (5s).", valueName: "duration"))
    var preRoll: String?

    /// What the options ask for, checked against the rest of the command line.
    struct Resolved {
        var followsTransport = false
        var triggerLevel: Double?
        var triggerStop: CaptureDuration?
        var preRoll: CaptureDuration?

        /// True when each take waits for the transport or for sound.
        var waits: Bool { followsTransport || triggerLevel != nil }
    }

    /// Checks the options and the ones they cannot go with: a start time, `--align-latency`,
    /// `--split`, `--takes`. `keyStartsTakes`: a pre-roll may also serve a record key (an
    /// interactive session).
    func resolve(at: String?, alignLatency: Bool, split: String?, takes: Int? = nil,
                 keyStartsTakes: Bool = false) throws -> Resolved {
        var resolved = Resolved()
        if transport {
            if let at { throw CommandLineError.badOption(flag: "--at", value: at, expected: "no start time with --transport (the transport's roll starts each take)") }
            if let takes { throw CommandLineError.badOption(flag: "--takes", value: "\(takes)", expected: "no --takes with --transport (each roll is a take)") }
            resolved.followsTransport = true
        }
        if let trigger {
            if transport { throw CommandLineError.badOption(flag: "--trigger", value: trigger, expected: "--trigger or --transport, not both") }
            if let at { throw CommandLineError.badOption(flag: "--at", value: at, expected: "no start time with --trigger (sound starts each take)") }
            if let takes { throw CommandLineError.badOption(flag: "--takes", value: "\(takes)", expected: "no --takes with --trigger (each trigger is a take)") }
            if alignLatency {
                throw CommandLineError.badOption(flag: "--trigger", value: trigger, expected: "no --align-latency with --trigger (not supported together)")
            }
            do { resolved.triggerLevel = try TriggerLevel.parse(trigger) } catch {
                throw CommandLineError.refusedValue(flag: "--trigger", value: trigger, error)
            }
        }
        if let triggerStop {
            guard trigger != nil else { throw CommandLineError.badOption(flag: "--trigger-stop", value: triggerStop, expected: "--trigger too") }
            let parsed = try CaptureDuration(parsing: triggerStop)
            guard !parsed.isZero else { throw CaptureError.badDuration(triggerStop, reason: "a stop after silence must be longer than zero") }
            resolved.triggerStop = parsed
        }
        if let preRoll {
            guard resolved.waits || keyStartsTakes else {
                throw CommandLineError.badOption(flag: "--pre-roll", value: preRoll,
                                                 expected: keyStartsTakes || split != nil
                                                    ? "--trigger, --transport or the record key (a take that waits), not --at, --for, --takes or --split alone"
                                                    : "--trigger or --transport too (a take that waits)")
            }
            resolved.preRoll = try CaptureDuration(parsing: preRoll)
        }
        if let split, resolved.waits {
            throw CommandLineError.badOption(flag: "--split", value: split, expected: "no --split with --transport or --trigger (not supported together)")
        }
        return resolved
    }

    /// The line jcap says while the first take waits.
    func waitingLine(followsTransport: Bool, preRoll: CaptureDuration?, eachTake: String) -> String {
        if followsTransport {
            return "jcap: waiting for the JACK transport to roll; each roll is \(eachTake) (Ctrl-C ends)"
        }
        return "jcap: waiting for sound at \(trigger ?? "")\(preRoll.map { ", keeping \($0) before it" } ?? ""); "
            + "each trigger is \(eachTake) (Ctrl-C ends)"
    }
}
