import Foundation
import XCTest

/// `tools/install` into a fresh prefix, as a person installs jcap: the program runs from there,
/// `man` renders its page and the shells' completion scripts are where the shells look.
final class InstallTests: XCTestCase {
    /// The package's root: this file is Tests/IntegrationTests/InstallTests.swift.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// Runs `program` to the end; its exit status, standard output and standard error.
    func run(_ program: String, _ arguments: [String], environment: [String: String] = [:],
             timeout: TimeInterval = 60) throws -> (status: Int32, output: String, errors: String) {
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        let process = try Subprocess(URL(fileURLWithPath: program), arguments, server: nil,
                                     directory: Self.packageRoot, environment: merged)
        let status = try process.wait(timeout: timeout)
        return (status, process.output, process.errorOutput)
    }

    func testInstallsProgramManPageAndCompletions() throws {
        let prefix = NSTemporaryDirectory() + "jcap-install-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        // The debug build the tests already made: a release build would take minutes here and
        // installs the same files. `swift test` holds the build folder's lock while it runs.
        let install = try run("/bin/bash", ["tools/install"], environment: ["PREFIX": prefix, "CONFIGURATION": "debug", "SWIFTPM_OPTIONS": "--ignore-lock"],
                              timeout: 900)
        XCTAssertEqual(install.status, 0, install.output + install.errors)

        let version = try run(prefix + "/bin/jcap", ["--version"])
        XCTAssertEqual(version.status, 0, version.errors)
        XCTAssertFalse(version.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)

        let page = prefix + "/share/man/man1/jcap.1"
        let rendered = try run("/usr/bin/man", ["-l", page], environment: ["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"])
        XCTAssertEqual(rendered.status, 0, rendered.errors)
        // mdoc complains on standard error about what it renders badly (blank lines).
        XCTAssertEqual(rendered.errors, "")
        for expected in ["NAME", "jcap", "SYNOPSIS", "record", "session", "takes", "ports", "play", "--channels"] {
            XCTAssertTrue(rendered.output.contains(expected), "the man page lacks '\(expected)'")
        }
        // `man jcap` finds the page through the prefix's man directory.
        let found = try run("/usr/bin/man", ["-w", "jcap"], environment: ["MANPATH": prefix + "/share/man"])
        XCTAssertEqual(found.output.trimmingCharacters(in: .whitespacesAndNewlines), page, found.errors)

        let completions = [
            "share/bash-completion/completions/jcap": "_jcap",
            "share/zsh/site-functions/_jcap": "#compdef jcap",
            "share/fish/vendor_completions.d/jcap.fish": "complete -c 'jcap'",
        ]
        for (path, marker) in completions {
            let script = try String(contentsOfFile: prefix + "/" + path, encoding: .utf8)
            XCTAssertTrue(script.contains(marker), "\(path) does not look like a completion script")
            XCTAssertTrue(script.contains("session"), "\(path) does not complete the subcommands")
        }
        let bashSyntax = try run("/bin/bash", ["-n", prefix + "/share/bash-completion/completions/jcap"])
        XCTAssertEqual(bashSyntax.status, 0, bashSyntax.errors)

        // The desktop entry session managers read (RaySession, Agordejo): valid, NSM-capable.
        let entry = prefix + "/share/applications/jcap.desktop"
        let desktop = try String(contentsOfFile: entry, encoding: .utf8)
        XCTAssertTrue(desktop.contains("\nX-NSM-Capable=true\n") && desktop.contains("\nX-NSM-Exec=jcap\n"), desktop)
        let validation = try run("/usr/bin/desktop-file-validate", [entry])
        XCTAssertEqual(validation.status, 0, validation.output + validation.errors)

        // The browser remote's page, where the installed jcap looks for it.
        for name in ["index.html", "remote.css", "remote.js"] {
            let installed = prefix + "/share/jcap/jcap_JackCaptureRemote.resources/Page/" + name
            XCTAssertTrue(FileManager.default.fileExists(atPath: installed), installed)
        }
    }
}
