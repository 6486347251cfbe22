import Foundation

/// The one owner of what a running jcap is doing: one take or take after take from a
/// `CaptureClient`, a `StudioSession` (interactive, unattended, on triggers, overdubbing), or a
/// `Player`. Surfaces (keys, a pipe, signals, a program) send it `ControlCommand`s; it carries
/// them out in one place, refusing with a `ControlRefusal` what does not apply now, and publishes
/// what happened as `ControlEvent`s and what is going on as a `ControlState`.
///
/// Driven from one thread: `start()`, then `apply(_:from:)` for each command, `update()` and
/// `takeEvents()` often (a take's events and its end are noticed there), `wait(upTo:)` between,
/// until `isFinished`. No terminal needed.
public final class ControlCore {
    private let work: ControlledWork
    private var started = false

    /// How long a question of `requestStop` or `requestQuit` waits for its answer.
    public static let confirmationSeconds: TimeInterval = 2

    /// One take, or take after take (`plan`), from `capture`; the caller closes it after.
    package init(recording capture: CaptureClient, plan: RecordingPlan) {
        work = RecordingWork(capture: capture, plan: plan)
    }

    /// `session`'s takes as `plan` says; with `overdub`, each take plays the take it dubs along.
    public init(session: StudioSession, overdub: SessionOverdub? = nil, plan: SessionPlan) {
        work = SessionWork(session: session, overdub: overdub, plan: plan)
    }

    /// `player` (prepared with `prepareToPlay`, not yet playing), started as `plan` says.
    public init(playing player: Player, plan: PlaybackPlan) {
        work = PlaybackWork(player: player, plan: plan)
    }

    /// Starts the work: the first take (or the wait for its ports), the playback. Failures come
    /// as a `.failed` event.
    public func start() {
        guard !started else { return }
        started = true
        work.start()
    }

    /// Carries out `command`, or says why not (the refusal is also an event, for the surfaces
    /// that did not send it).
    @discardableResult
    public func apply(_ command: ControlCommand, from origin: ControlOrigin = .surface) -> ControlRefusal? {
        start()
        let refusal = work.isFinished ? .finished : work.apply(command, origin: origin)
        if let refusal { work.emit(.refused(command, refusal)) }
        return refusal
    }

    /// Carries out `command` as `apply` does, and says how it went, for a surface that answers
    /// whoever sent the command (OSC): a failure the core tells as an `.error` event (an unknown
    /// track, a take the log lacks) is part of the answer too. The events stay for `takeEvents()`.
    public func answer(_ command: ControlCommand, from origin: ControlOrigin = .surface) -> ControlAnswer {
        let told = work.pendingEventCount
        if let refusal = apply(command, from: origin) { return .refused(refusal) }
        for case .error(let error) in work.events(from: told) { return .failed(error) }
        return .done
    }

    /// Notices what happened since the last call: the take's events, its end, the next take.
    public func update() {
        start()
        if !work.isFinished { work.update() }
    }

    /// Events since the last call, in order.
    public func takeEvents() -> [ControlEvent] { work.takeEvents() }

    /// What is going on now (the meters read afresh).
    public var state: ControlState { work.state() }

    /// Everything has ended: nothing more will happen.
    public var isFinished: Bool { work.isFinished }

    /// Waits at most `seconds`, less when a take ends meanwhile.
    public func wait(upTo seconds: TimeInterval) {
        work.wait(upTo: seconds)
    }
}
