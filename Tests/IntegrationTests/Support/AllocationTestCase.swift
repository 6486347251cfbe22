import AllocationProbe
import MallocInterposerSwift
import XCTest

/// A `JackTestCase` whose tests count allocations on a JACK process thread: malloc-interposer's
/// hook (`allocation_probe_hook`) is installed around each test. Under ThreadSanitizer, which owns
/// malloc, the hook sees nothing, so the tests are skipped there (`tools/test` runs them).
class AllocationTestCase: JackTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try XCTSkipIf(Executables.builtWithThreadSanitizer,
                      "ThreadSanitizer owns malloc: the allocation hook sees nothing (tools/test runs these)")
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.setAllocationHook(allocation_probe_hook)
        MallocInterposerSwift.hook()
    }

    override func tearDownWithError() throws {
        allocation_probe_unwatch()
        MallocInterposerSwift.unhook()
        MallocInterposerSwift.setAllocationHook(nil)
        try super.tearDownWithError()
    }
}
