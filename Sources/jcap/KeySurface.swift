import JackCapture

/// Keys from the terminal, or from a pipe (a script), as commands: the first surface of jcap.
final class KeySurface: ControlSurface {
    /// Which keys mean what.
    enum Keymap {
        /// Space pauses and resumes, q or Enter stops (`TerminalKeys.command(for:)`).
        case recording
        /// `SessionKeyboard` on a terminal, `SessionKeys` from a pipe (a script's keys are deliberate).
        case session
        /// `PlayKeys`: also the arrows, seeking.
        case playback
    }

    let keys: TerminalKeys
    private let keymap: Keymap
    private var playKeys = PlayKeys()
    private var keyboard = SessionKeyboard()
    /// Where `?` shows the keys.
    private let console: Console?

    init(_ keys: TerminalKeys, keymap: Keymap, console: Console? = nil) {
        self.keys = keys
        self.keymap = keymap
        self.console = console
    }

    func poll(_ core: ControlCore) {
        let bytes = keys.keys()
        if keymap == .session && keys.isActive {
            var actions = keyboard.actionsOnPause(state: core.state)
            for byte in bytes { actions += keyboard.actions(for: byte, state: core.state) }
            for action in actions {
                switch action {
                case .command(let command): core.apply(command)
                case .showKeys: for line in SessionKeyboard.help { console?.line(line) }
                case .say(let text): console?.line("jcap: " + text)
                }
            }
            console?.prompt = keyboard.prompt
            return
        }
        guard !bytes.isEmpty else { return }
        switch keymap {
        case .recording:
            for command in bytes.compactMap(TerminalKeys.command(for:)) {
                core.apply(command == .stop ? .stop : .togglePause)
            }
        case .session:
            // Key by key: a key's meaning can hang on the one before (d, then y).
            for byte in bytes {
                if let command = SessionKeys.command(for: byte, pendingDiscard: core.state.pendingDiscard) { core.apply(command) }
            }
        case .playback:
            for key in playKeys.keys(in: bytes) {
                switch key {
                case .togglePause: core.apply(.togglePause)
                case .stop: core.apply(.stop)
                case .seekBack, .seekForward:
                    let step = Int64(PlayKeys.seekSeconds * core.state.sampleRate)
                    core.apply(.seekBy(frames: key == .seekBack ? -step : step))
                }
            }
        }
    }
}
