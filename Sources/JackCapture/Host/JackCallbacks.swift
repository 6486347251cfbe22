import CJack

/// What a user of `JackHost` runs on JACK's threads: its process callback and, for each
/// notification it handles itself, its own callback, all given `argument` (its pinned process
/// state). The host installs its own notification callbacks, which count each notification
/// (`HostNotifications`) and then call these.
package struct JackCallbacks {
    package var process: JackProcessCallback
    package var xrun: JackXRunCallback?
    package var shutdown: JackInfoShutdownCallback?
    package var portConnect: JackPortConnectCallback?
    package var bufferSize: JackBufferSizeCallback?
    package var sampleRate: JackSampleRateCallback?
    package var argument: UnsafeMutableRawPointer

    package init(process: @escaping JackProcessCallback, argument: UnsafeMutableRawPointer,
                 xrun: JackXRunCallback? = nil, shutdown: JackInfoShutdownCallback? = nil,
                 portConnect: JackPortConnectCallback? = nil, bufferSize: JackBufferSizeCallback? = nil,
                 sampleRate: JackSampleRateCallback? = nil) {
        self.process = process
        self.argument = argument
        self.xrun = xrun
        self.shutdown = shutdown
        self.portConnect = portConnect
        self.bufferSize = bufferSize
        self.sampleRate = sampleRate
    }
}
