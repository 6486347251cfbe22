import CUring
import Glibc

/// Where the direct writes of a group of files (a take's, or a segment's) go to the kernel:
/// io_uring, so the aligned blocks of 1024 files cost one system call per pass of the disk
/// writer, not one each. Where the kernel has no io_uring or refuses it (a container's seccomp
/// profile, `kernel.io_uring_disabled`), each block is written with pwrite(2) as it is queued:
/// the same files, more calls.
///
/// Used by one thread at a time: the thread that creates the take's files, then its disk writer.
/// A write stays the queue's until its completion is taken (`submit`, `wait`), which tells its
/// file (`DirectFile.completed`).
package final class DirectWriteQueue: @unchecked Sendable {
    // @unchecked: a C ring and unlocked counters, used by one thread at a time (see above).
    private let ring: UnsafeMutablePointer<io_uring>?
    /// Writes queued and not yet handed to the kernel.
    private var queued = 0
    /// Writes handed over (or queued) whose completion has not been taken.
    private var outstanding = 0
    /// Submission slots: a pass of the writer queues far fewer between its submits.
    static let entries: UInt32 = 256
    /// The most writes outstanding at once: the kernel's completion ring (twice `entries`) never
    /// overflows, and a queue of 1024 files waits for the disk rather than run ahead of it.
    static let mostOutstanding = 512

    /// Why io_uring is not used, when it is not (the errno of io_uring_setup).
    package let ringRefusal: Int32?

    /// A queue through io_uring where the kernel allows it; not `batched`, through pwrite(2).
    package init(batched: Bool = true) {
        var error: Int32 = 0
        ring = batched ? jcap_uring_create(Self.entries, &error) : nil
        ringRefusal = ring == nil ? (batched ? error : 0) : nil
    }

    deinit {
        if let ring {
            // Every write's file waits for it before closing, so nothing is outstanding here;
            // should a file have been dropped unfinished, its writes still end before the ring does.
            waitForAll()
            jcap_uring_destroy(ring)
        }
    }

    /// Whether writes are batched through io_uring.
    package var isBatched: Bool { ring != nil }

    /// Queues a write of `length` bytes at `buffer` to `file` at `offset`; its completion goes to
    /// `file.completed(slot:result:)`. The buffer must stay as it is until then.
    func write(_ file: DirectFile, slot: Int, from buffer: UnsafeRawPointer, length: Int, at offset: Int64) {
        guard let ring else {
            let written = pwrite(file.descriptor, buffer, length, off_t(offset))
            file.completed(slot: slot, result: written < 0 ? -Int(errno) : written)
            return
        }
        while outstanding >= Self.mostOutstanding { takeCompletion(waiting: true) }
        let tag = UInt64(UInt(bitPattern: Unmanaged.passUnretained(file).toOpaque())) | UInt64(slot)
        while jcap_uring_queue_write(ring, file.descriptor, buffer, UInt32(length), UInt64(offset), tag) == -EBUSY {
            submit()
        }
        queued += 1
        outstanding += 1
    }

    /// Hands everything queued to the kernel in one call and takes the completions already there.
    package func submit() {
        guard let ring else { return }
        if queued > 0 {
            let submitted = jcap_uring_submit(ring, 0)
            if submitted > 0 { queued -= Int(submitted) }
        }
        while takeCompletion(waiting: false) {}
    }

    /// Waits until `done` holds: submits what is queued and takes completions as they come. Where
    /// it holds already (a buffer long written), no system call is made, so the writes queued stay
    /// for the pass's one submission.
    func wait(until done: () -> Bool) {
        guard !done() else { return }
        submit()
        while !done() {
            guard outstanding > 0 else { return }
            takeCompletion(waiting: true)
        }
    }

    /// Waits for every write outstanding.
    func waitForAll() { wait { outstanding == 0 } }

    /// Takes one completion and tells its file; false when none was there (or, waiting, none
    /// could come).
    @discardableResult
    private func takeCompletion(waiting: Bool) -> Bool {
        guard let ring, outstanding > 0 else { return false }
        if waiting && queued > 0 {
            let submitted = jcap_uring_submit(ring, 0)
            if submitted > 0 { queued -= Int(submitted) }
        }
        var tag: UInt64 = 0
        var result: Int32 = 0
        var status: Int32
        repeat {
            status = jcap_uring_take_completion(ring, waiting ? 1 : 0, &tag, &result)
        } while status == -EINTR
        guard status == 0 else { return false }
        outstanding -= 1
        let slot = Int(tag & 0xF)
        guard let address = UnsafeRawPointer(bitPattern: UInt(tag & ~0xF)) else { return true }
        Unmanaged<DirectFile>.fromOpaque(address).takeUnretainedValue().completed(slot: slot, result: Int(result))
        return true
    }
}
