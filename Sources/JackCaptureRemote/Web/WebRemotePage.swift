import Foundation

/// The page's files (Web/Page: one HTML file, its CSS and its JavaScript; no build step, nothing
/// from elsewhere), read once from the package's resources and served from memory: no request
/// names a file on disk.
struct WebRemotePage: Sendable {
    struct File: Sendable {
        let contentType: String
        let bytes: [UInt8]
    }

    /// By URL path.
    let files: [String: File]

    static let served: [(path: String, resource: String, contentType: String)] = [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/remote.css", "remote.css", "text/css; charset=utf-8"),
        ("/remote.js", "remote.js", "text/javascript; charset=utf-8"),
    ]

    static func load() throws(WebRemoteError) -> WebRemotePage {
        var files: [String: File] = [:]
        let folder = Bundle.module.bundleURL.appendingPathComponent("Page")
        for item in served {
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(item.resource)) else {
                throw .pageMissing(folder.appendingPathComponent(item.resource).path)
            }
            files[item.path] = File(contentType: item.contentType, bytes: Array(data))
        }
        return WebRemotePage(files: files)
    }
}
