extension ExportSink {
  /// Sinks read no side files unless they say so: `steps`, `stats` and `workouts` never open them.
  public var wantsSideFiles: Bool { false }
  public func consumeSideFile(_ event: SideFileEvent) throws {}
}
