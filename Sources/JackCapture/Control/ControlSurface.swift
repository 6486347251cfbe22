/// A way to control a running jcap (keys, a pipe of keys, signals, a browser, OSC, NSM): it
/// reads the core's state and sends it commands, nothing more (what a command does is the
/// core's business). jcap's run loop polls each surface about 100 times a second, on the thread
/// that drives the core, and hands each the events it tells.
package protocol ControlSurface: AnyObject {
    func poll(_ core: ControlCore)
    /// What happened since the last poll, in order (the same events the console tells).
    func observe(_ events: [ControlEvent])
}

extension ControlSurface {
    package func observe(_ events: [ControlEvent]) {}
}
