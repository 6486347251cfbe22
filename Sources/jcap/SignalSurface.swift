import JackCapture

/// Signals as commands: SIGINT and SIGTERM quit (finishing the take), each SIGUSR1 toggles pause.
final class SignalSurface: ControlSurface {
    private let signals: ControlSignals
    private var quitSent = false

    init(_ signals: ControlSignals) {
        self.signals = signals
    }

    func poll(_ core: ControlCore) {
        if !quitSent, let signal = signals.stopSignal {
            quitSent = true
            core.apply(.quit, from: signal == SIGINT ? .interrupt : .terminate)
        }
        for _ in 0..<signals.takePauseToggles() { core.apply(.togglePause) }
    }
}
