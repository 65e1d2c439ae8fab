import HealthPort

#if canImport(Glibc)
  import Glibc
#endif

// Before any thread starts: one heap for all of them (many-member zips stay flat).
LargeAllocations.oneArena()
CommandLineTool.installSignalHandlers()
exit(CommandLineTool.run(Array(CommandLine.arguments.dropFirst())))
