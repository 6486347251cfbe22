import Testing
@testable import JackCapture

@Suite("Open-file limit (one file per track of 1024 channels)")
struct OpenFileLimitTests {
    func softLimit() -> rlim_t {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return limit.rlim_cur
    }

    @Test("the soft limit rises to what a take needs, never past the hard limit, and never falls")
    func raises() {
        var original = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &original)
        defer { setrlimit(Int32(RLIMIT_NOFILE.rawValue), &original) }
        guard original.rlim_max > 600 else { return }
        var lowered = rlimit(rlim_cur: 512, rlim_max: original.rlim_max)
        #expect(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &lowered) == 0)
        raiseOpenFileLimit(toAtLeast: 600)
        #expect(softLimit() == 600)
        raiseOpenFileLimit(toAtLeast: 100)
        #expect(softLimit() == 600)
        raiseOpenFileLimit(toAtLeast: Int(clamping: original.rlim_max) + 1_000)
        #expect(softLimit() == original.rlim_max)
    }
}
