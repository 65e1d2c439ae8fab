#if canImport(Glibc)
  import Glibc
#endif

CommandLineTool.installSignalHandlers()
exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst())))
