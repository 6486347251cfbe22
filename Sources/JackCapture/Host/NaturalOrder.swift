/// Orders names the way people number things: runs of digits compare as numbers, so `out_2`
/// comes before `out_10` and `capture_9` before `capture_10`.
package enum NaturalOrder {
    package static func areInIncreasingOrder(_ lhs: String, _ rhs: String) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// Negative, zero or positive as `lhs` sorts before, with or after `rhs`.
    package static func compare(_ lhs: String, _ rhs: String) -> Int {
        var left = Array(lhs.unicodeScalars)[...], right = Array(rhs.unicodeScalars)[...]
        while let l = left.first, let r = right.first {
            if isDigit(l) && isDigit(r) {
                let leftRun = left.prefix(while: isDigit), rightRun = right.prefix(while: isDigit)
                let leftDigits = leftRun.drop { $0 == "0" }, rightDigits = rightRun.drop { $0 == "0" }
                if leftDigits.count != rightDigits.count { return leftDigits.count - rightDigits.count }
                for (a, b) in zip(leftDigits, rightDigits) where a != b { return a.value < b.value ? -1 : 1 }
                if leftRun.count != rightRun.count { return leftRun.count - rightRun.count }
                left = left.dropFirst(leftRun.count)
                right = right.dropFirst(rightRun.count)
            } else {
                if l != r { return l.value < r.value ? -1 : 1 }
                left = left.dropFirst()
                right = right.dropFirst()
            }
        }
        return left.count - right.count
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar >= "0" && scalar <= "9" }
}
