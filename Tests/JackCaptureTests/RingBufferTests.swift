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

    @Test("readPointer: the staged bytes in place when they lie in one piece, nil exactly when they wrap")
    func readPointer() {
        let ring = RingBuffer(capacity: 16)
        defer { ring.deallocate() }
        #expect(write(ring, Array(0..<10)))
        let whole = ring.readPointer(at: 0, byteCount: 10)
        #expect(whole == UnsafeRawPointer(ring.storage))
        #expect(whole.map { Array(UnsafeRawBufferPointer(start: $0, count: 10)) } == Array(0..<10))
        #expect(ring.readPointer(at: 2, byteCount: 8) == UnsafeRawPointer(ring.storage + 2))
        #expect(read(ring, 10) == Array(0..<10))

        // Read index at 10: bytes 10...15 lie at the end of the storage, 16...19 at its start.
        #expect(write(ring, Array(10..<20)))
        #expect(ring.readPointer(at: 0, byteCount: 6) == UnsafeRawPointer(ring.storage + 10))
        #expect(ring.readPointer(at: 0, byteCount: 7) == nil)
        #expect(ring.readPointer(at: 0, byteCount: 10) == nil)
        #expect(ring.readPointer(at: 5, byteCount: 1) == UnsafeRawPointer(ring.storage + 15))
        #expect(ring.readPointer(at: 5, byteCount: 2) == nil)
        let wrapped = ring.readPointer(at: 6, byteCount: 4)
        #expect(wrapped == UnsafeRawPointer(ring.storage))
        #expect(wrapped.map { Array(UnsafeRawBufferPointer(start: $0, count: 4)) } == Array(16..<20))
        #expect(ring.readPointer(at: 6, byteCount: 0) != nil)
        #expect(read(ring, 10) == Array(10..<20))
    }

    @Test("readPointer over many wraps: nil iff the range crosses the end, otherwise exactly what was staged")
    func readPointerRounds() {
        let capacity = 10
        let ring = RingBuffer(capacity: capacity)
        defer { ring.deallocate() }
        var consumed = 0
        var problems: [String] = []
        for round in 0..<40 {
            let block = (0..<7).map { UInt8((round * 7 + $0) % 256) }
            #expect(write(ring, block))
            for offset in 0...7 {
                for count in 0...(7 - offset) {
                    let start = (consumed + offset) % capacity
                    let wraps = start + count > capacity
                    let pointer = ring.readPointer(at: offset, byteCount: count)
                    if wraps != (pointer == nil) {
                        problems.append("round \(round), \(count) bytes at \(offset): \(pointer == nil ? "nil" : "a pointer")")
                    } else if let pointer {
                        if pointer != UnsafeRawPointer(ring.storage + start) {
                            problems.append("round \(round), \(count) bytes at \(offset): not at storage + \(start)")
                        } else if Array(UnsafeRawBufferPointer(start: pointer, count: count)) != Array(block[offset..<offset + count]) {
                            problems.append("round \(round), \(count) bytes at \(offset): other bytes")
                        }
                    }
                }
            }
            #expect(read(ring, 7) == block)
            consumed += 7
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")
    }

    @Test("stagingPieces: the bytes up to the end, then the storage's start; what is written through them is what peek reads")
    func stagingPieces() throws {
        let ring = RingBuffer(capacity: 16)
        defer { ring.deallocate() }
        // Nothing written: one piece from the start.
        let fresh = ring.stagingPieces(byteCount: 5, at: 0)
        #expect(fresh.first == ring.storage)
        #expect(fresh.firstByteCount == 5)
        #expect(fresh.second == ring.storage)

        // Write index at 12.
        #expect(write(ring, Array(0..<12)))
        #expect(read(ring, 12) == Array(0..<12))
        let pieces = ring.stagingPieces(byteCount: 8, at: 0)
        #expect(pieces.first == ring.storage + 12)
        try #require(pieces.firstByteCount == 4)
        #expect(pieces.second == ring.storage)
        #expect(ring.stagingPieces(byteCount: 4, at: 0).firstByteCount == 4, "exactly to the end: one piece")
        #expect(ring.stagingPieces(byteCount: 3, at: 0).firstByteCount == 3)
        let offset = ring.stagingPieces(byteCount: 3, at: 2)
        #expect(offset.first == ring.storage + 14)
        #expect(offset.firstByteCount == 2)
        let pastEnd = ring.stagingPieces(byteCount: 3, at: 5)
        #expect(pastEnd.first == ring.storage + 1, "an offset past the end starts in the storage")
        #expect(pastEnd.firstByteCount == 3)

        // Stage 8 bytes through the pieces.
        let block: [UInt8] = [100, 101, 102, 103, 104, 105, 106, 107]
        block.withUnsafeBytes { bytes in
            pieces.first.copyMemory(from: bytes.baseAddress!, byteCount: pieces.firstByteCount)
            pieces.second.copyMemory(from: bytes.baseAddress! + pieces.firstByteCount, byteCount: 8 - pieces.firstByteCount)
        }
        #expect(ring.readableByteCount() == 0, "staged bytes are not visible before the commit")
        ring.commitWrite(byteCount: 8)
        #expect(ring.readPointer(at: 0, byteCount: 8) == nil)
        #expect(read(ring, 8) == block)
    }

    @Test("stagingPieces over many wraps, at offsets: peek reads back every byte staged through them")
    func stagingPiecesRounds() throws {
        let capacity = 11
        let ring = RingBuffer(capacity: capacity)
        defer { ring.deallocate() }
        var written = 0
        for round in 0..<40 {
            let block = (0..<9).map { UInt8((round * 9 + $0) % 256) }
            // Staged in two parts, the second first, as the callback stages channels.
            for (offset, count) in [(4, 5), (0, 4)] {
                let pieces = ring.stagingPieces(byteCount: count, at: offset)
                let start = (written + offset) % capacity
                #expect(pieces.first == ring.storage + start, "round \(round)")
                try #require(pieces.firstByteCount == min(count, capacity - start), "round \(round)")
                #expect(pieces.second == ring.storage)
                block.withUnsafeBytes { bytes in
                    pieces.first.copyMemory(from: bytes.baseAddress! + offset, byteCount: pieces.firstByteCount)
                    pieces.second.copyMemory(from: bytes.baseAddress! + offset + pieces.firstByteCount,
                                             byteCount: count - pieces.firstByteCount)
                }
            }
            ring.commitWrite(byteCount: 9)
            written += 9
            #expect(read(ring, 9) == block, "round \(round)")
        }
    }
}
