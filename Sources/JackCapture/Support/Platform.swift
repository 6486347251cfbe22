// The C library, in one place for the whole module: jcap is built on Linux only (JACK 2, glibc),
// so every file sees Glibc through this import and none repeats a platform conditional.
// Re-exported: a program that imports JackCapture gets the same C library (Foundation re-exports
// it on Linux too), which jcap, jcap-testsignal and the benchmarks rely on.
#if canImport(Glibc)
@_exported import Glibc
#else
#error("JackCapture is built on Linux only: it needs glibc and JACK 2")
#endif
