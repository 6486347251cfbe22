/// The error codes of the NSM API (API 1.1.1, "Error Code Definitions"), sent in `/error` replies.
public enum NSMErrorCode: Int32, Sendable {
    case general = -1
    case incompatibleAPI = -2
    case blacklisted = -3
    case launchFailed = -4
    case noSuchFile = -5
    case noSessionOpen = -6
    case unsavedChanges = -7
    case notNow = -8
    case badProject = -9
    case createFailed = -10
}
