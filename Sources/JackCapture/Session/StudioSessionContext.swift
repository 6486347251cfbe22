import Foundation

/// What a session's takes share with it: its definition, client and log, and the disk reserve.
final class StudioSessionContext: Sendable {
    let definition: SessionDefinition
    /// The session's client; replaced by one on the same server when it comes back after going away.
    var client: CaptureClient { currentClient.withLock { $0 } }
    private let currentClient: Locked<CaptureClient>
    let log: TakeLog
    private let reserve: Locked<Int64>

    init(definition: SessionDefinition, client: CaptureClient, log: TakeLog, diskReserveBytes: Int64) {
        self.definition = definition
        currentClient = Locked(client)
        self.log = log
        reserve = Locked(diskReserveBytes)
    }

    func replaceClient(with client: CaptureClient) {
        currentClient.withLock { $0 = client }
    }

    var diskReserveBytes: Int64 {
        get { reserve.withLock { $0 } }
        set { reserve.withLock { $0 = newValue } }
    }

    /// Free bytes on the session folder's file system (statvfs), nil if it cannot be read.
    var freeDiskBytes: Int64? {
        var info = statvfs()
        guard statvfs(definition.folder, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}
