/// jcap's version, as the command line prints it.
package enum JackCaptureVersion {
    package static let current = "0.6.0"
}
