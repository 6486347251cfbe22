/// What every fuzz target's entry point does: hands its arguments and its one-input function to
/// libFuzzer's driver. (SwiftPM links an executable's `main` to `<module>_main`, which clashes with
/// libFuzzer's own `main`; each target defines that symbol and calls this.)
public func runFuzzer(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                      _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32 {
    var argc = argc, argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, testOneInput)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32
