import Foundation
import JackCapture
@testable import jcap

/// A control surface that sends a list of commands in order, each once the one before has done
/// what it should (a state the core's snapshots must reach, or a refusal), and notes every step
/// that did not. It ends with the script: the last command should end the run.
final class ScriptedSurface: ControlSurface {
    enum Expectation {
        /// The core's state satisfies this within the time allowed.
        case state(String, (ControlState) -> Bool)
        /// The core refuses the command so.
        case refused(ControlRefusal)
    }

    struct Step {
        var command: ControlCommand
        var expectation: Expectation
        /// Something to wait for before the command is sent (a take to have run a while).
        var before: ((ControlState) -> Bool)?
    }

    private var steps: [Step]
    private var next = 0
    private var waiting: (check: (ControlState) -> Bool, what: String, deadline: Date)?
    private let timeout: TimeInterval
    /// What went wrong, a line a step.
    private(set) var failures: [String] = []
    /// The commands carried out and the state each led to (refused ones with no state).
    private(set) var log: [(command: ControlCommand, state: ControlState?)] = []

    init(_ steps: [Step], timeout: TimeInterval = 10) {
        self.steps = steps
        self.timeout = timeout
    }

    var isDone: Bool { next == steps.count && waiting == nil }

    /// After the run: the last step's state, which the run's end may have cut short of a poll.
    func settle(_ core: ControlCore) {
        guard let pending = waiting else { return }
        if pending.check(core.state) { log.append((steps[next - 1].command, core.state)) } else {
            failures.append("\(steps[next - 1].command): never reached \(pending.what); last state \(core.state)")
        }
        waiting = nil
    }

    func poll(_ core: ControlCore) {
        if let pending = waiting {
            let state = core.state
            if pending.check(state) {
                log.append((steps[next - 1].command, state))
                waiting = nil
            } else if Date() > pending.deadline {
                failures.append("\(steps[next - 1].command): never reached \(pending.what); last state \(state)")
                waiting = nil
            }
            return
        }
        guard next < steps.count else { return }
        let step = steps[next]
        if let before = step.before, !before(core.state) { return }
        next += 1
        let refusal = core.apply(step.command)
        switch step.expectation {
        case .refused(let expected):
            if refusal != expected { failures.append("\(step.command): expected the refusal \(expected), got \(String(describing: refusal))") }
            log.append((step.command, nil))
        case .state(let what, let check):
            if let refusal {
                failures.append("\(step.command): refused: \(refusal)")
            } else {
                waiting = (check, what, Date().addingTimeInterval(timeout))
            }
        }
    }
}
