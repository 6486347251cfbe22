/// `[remote]` in a session file: the browser remote `jcap session` serves, as `--remote` and
/// `--remote-token` would set it (the options win).
public struct SessionRemote: Equatable, Sendable {
    /// `address`: where it listens (127.0.0.1 when left out: only this machine).
    public var address: String?
    /// `port`: 1 to 65535 (0: any free port).
    public var port: Int
    /// `token`: the secret every request carries (made afresh each run when left out).
    public var token: String?

    public init(address: String? = nil, port: Int, token: String? = nil) {
        self.address = address
        self.port = port
        self.token = token
    }
}
