import JackCapture

/// A way to control a running jcap: it reads the core's state and sends it commands, nothing
/// more (what a command does is the core's business). `ControlRunLoop` polls each surface about
/// 100 times a second.
protocol ControlSurface: AnyObject {
    func poll(_ core: ControlCore)
}
