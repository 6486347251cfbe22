/// jcap's version, as `jcap --version` prints it.
public enum JackCaptureVersion {
    public static let current = "0.6.0"
}
