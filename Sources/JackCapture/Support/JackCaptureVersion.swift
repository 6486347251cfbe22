/// jcap's version, as `jcap --version` prints it.
package enum JackCaptureVersion {
    package static let current = "0.6.0"
}
