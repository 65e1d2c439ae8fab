#if canImport(Glibc)
  import Glibc
#endif

/// A glibc function that the Glibc module leaves out (`mallopt` of `malloc.h`; `sync_file_range`
/// and `getdents64`, declared only under `_GNU_SOURCE`), looked up by name in the running
/// process, to be called with the C calling convention; nil where it is not found (another C
/// library, another system).
enum GlibcFunction {
  static func lookUp<Function>(_ name: String, as type: Function.Type) -> Function? {
    #if os(Linux)
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
      return unsafeBitCast(symbol, to: type)
    #else
      return nil
    #endif
  }
}
