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
        let folder = resources.appendingPathComponent("Page")
        for item in served {
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(item.resource)) else {
                throw .pageMissing(folder.appendingPathComponent(item.resource).path)
            }
            files[item.path] = File(contentType: item.contentType, bytes: Array(data))
        }
        return WebRemotePage(files: files)
    }

    /// The package's resources: installed (tools/install puts them in PREFIX/share/jcap, beside
    /// PREFIX/bin), else `Bundle.module` (next to the program, or in the build folder).
    static var resources: URL {
        let bundle = "jcap_JackCaptureRemote.resources"
        let installed = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("share/jcap/" + bundle)
        if FileManager.default.fileExists(atPath: installed.appendingPathComponent("Page").path) { return installed }
        return Bundle.module.bundleURL
    }
}
