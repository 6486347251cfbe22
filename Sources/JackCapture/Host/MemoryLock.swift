/// Keeps pages the real-time thread touches resident (mlock(2)); without the privilege to lock
/// memory the pages are still touched beforehand, which is what matters on a machine without swap.
func lockInMemory(_ address: UnsafeMutableRawPointer, byteCount: Int) -> Bool {
    mlock(address, byteCount) == 0
}

/// Undoes `lockInMemory` (munlock(2)).
func unlockFromMemory(_ address: UnsafeMutableRawPointer, byteCount: Int) {
    _ = munlock(address, byteCount)
}
