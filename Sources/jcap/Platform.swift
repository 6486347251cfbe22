// The C library, in one place for jcap (Linux only, like the library it records with): every
// file sees Glibc through this import and none repeats a platform conditional.
#if canImport(Glibc)
@_exported import Glibc
#else
#error("jcap is built on Linux only: it needs glibc and JACK 2")
#endif
