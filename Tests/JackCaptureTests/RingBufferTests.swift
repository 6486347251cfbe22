import Testing
import Foundation
@testable import JackCapture

@Suite("Lock-free ring buffer")
struct RingBufferTests {
    func write(_ ring: RingBuffer, _ values: [UInt8]) -> Bool {
        guard ring.writableByteCount() >= values.count else { return false }
        values.withUnsafeBytes { ring.stage(from: $0.baseAddress!, byteCount: values.count, at: 0) }
        ring.commitWrite(byteCount: values.count)
        return true
    }

    func read(_ ring: RingBuffer, _ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { ring.peek(into: $0.baseAddress!, byteCount: count, at: 0) }
        ring.commitRead(byteCount: count)
        return out
    }

    @Test("empty: nothing to read, everything writable")
    func empty() {
        let ring = RingBuffer(capacity: 16)
        defer { ring.deallocate() }
        #expect(ring.readableByteCount() == 0)
        #expect(ring.writableByteCount() == 16)
    }

    @Test("full: a write that does not fit is refused whole; reading frees room")
    func full() {
        let ring = RingBuffer(capacity: 16)
        defer { ring.deallocate() }
        #expect(write(ring, Array(0..<16)))
        #expect(ring.writableByteCount() == 0)
        #expect(!write(ring, [99]))
        #expect(ring.readableByteCount() == 16)
        #expect(read(ring, 4) == [0, 1, 2, 3])
        #expect(ring.writableByteCount() == 4)
        #expect(!write(ring, [1, 2, 3, 4, 5]))
        #expect(write(ring, [16, 17, 18, 19]))
        #expect(read(ring, 16) == Array(4..<20))
    }

    @Test("wraparound: blocks split across the end come back whole, staged parts land at their offsets")
    func wraparound() {
        let ring = RingBuffer(capacity: 10)
        defer { ring.deallocate() }
        for round in 0..<50 {
            let block = (0..<7).map { UInt8((round * 7 + $0) % 256) }
            // Stage in two parts, second first, as the callback stages header and channels.
            block.withUnsafeBytes { raw in
                ring.stage(from: raw.baseAddress! + 3, byteCount: 4, at: 3)
                ring.stage(from: raw.baseAddress!, byteCount: 3, at: 0)
            }
            #expect(ring.readableByteCount() == 0, "staged bytes are not visible before the commit")
            ring.commitWrite(byteCount: 7)
            var partial = [UInt8](repeating: 0, count: 4)
            partial.withUnsafeMutableBytes { ring.peek(into: $0.baseAddress!, byteCount: 4, at: 3) }
            #expect(partial == Array(block[3...]))
            #expect(read(ring, 7) == block)
        }
    }

    @Test("two threads: every value arrives once, in order", .timeLimit(.minutes(1)))
    func twoThreadStress() async {
        let ring = RingBuffer(capacity: 4_096 + 7)
        defer { ring.deallocate() }
        let total = 2_000_000
        let producer = Thread {
            var next: UInt32 = 0
            var block = [UInt32](repeating: 0, count: 97)
            while next < UInt32(total) {
                let count = min(1 + Int(next % 97), total - Int(next))
                let bytes = count * 4
                if ring.writableByteCount() < bytes { continue }
                for index in 0..<count { block[index] = next + UInt32(index) }
                block.withUnsafeBytes { ring.stage(from: $0.baseAddress!, byteCount: bytes, at: 0) }
                ring.commitWrite(byteCount: bytes)
                next += UInt32(count)
            }
        }
        producer.start()
        var expected: UInt32 = 0
        var mismatches = 0
        var value: UInt32 = 0
        while expected < UInt32(total) {
            guard ring.readableByteCount() >= 4 else { continue }
            withUnsafeMutableBytes(of: &value) { ring.peek(into: $0.baseAddress!, byteCount: 4, at: 0) }
            ring.commitRead(byteCount: 4)
            if value != expected { mismatches += 1 }
            expected += 1
        }
        #expect(mismatches == 0)
        #expect(ring.readableByteCount() == 0)
    }
}
