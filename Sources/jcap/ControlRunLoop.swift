import JackCapture

/// jcap's one run loop, for recording, sessions and playback: polls the surfaces for commands
/// (they hand them to the core), lets the core notice what happened, prints its events through
/// the console and draws its state about 20 times a second, until the core has finished; then
/// the worst exit status of what happened.
struct ControlRunLoop {
    let console: Console
    /// How the console words the core's events.
    var wording = EventWording()

    func run(_ core: ControlCore, surfaces: [ControlSurface]) -> ExitStatus {
        var status = ExitStatus.success
        core.start()
        var pass = 0
        while true {
            for surface in surfaces { surface.poll(core) }
            core.update()
            let events = core.takeEvents()
            for event in events {
                console.tell(event, wording)
                status = .worst(status, ExitStatus(for: event))
            }
            if !events.isEmpty { for surface in surfaces { surface.observe(events) } }
            if core.isFinished { break }
            // Passes of 10 ms (keys act at once); every fifth the core's state is read (which
            // also watches the tracks for dead inputs) and drawn when the console is due.
            if pass % 5 == 0 {
                let state = core.state
                if console.isUpdateDue() {
                    console.show(MeterSnapshot(state, shortensNames: wording.shortensNames), showsFrames: wording.verbose)
                }
            }
            pass += 1
            core.wait(upTo: 0.01)
        }
        console.endDisplay()
        return status
    }
}
