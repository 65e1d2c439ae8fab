import Testing

extension Trait where Self == ConditionTrait {
  /// For tests that read `../shared/fixtures/real/`: skipped with a message where it is absent,
  /// run (and so failing) where CI forbids skipping.
  public static var needsRealFixtures: Self {
    .enabled(if: TestEnvironment.runsRealFixtureTests, Comment(rawValue: TestEnvironment.skipMessage))
  }

  /// For tests that run `../shared/bench/gen_export.py`: skipped with a message where it is absent,
  /// run (and so failing) where CI forbids skipping.
  public static var needsExportGenerator: Self {
    .enabled(if: TestEnvironment.runsExportGeneratorTests, Comment(rawValue: TestEnvironment.generatorSkipMessage))
  }

  /// For tests that load outputs with the pinned Python readers of `.venv-clients/`.
  public static var needsPythonClients: Self {
    .enabled(if: TestEnvironment.runsClientTests, Comment(rawValue: TestEnvironment.clientSkipMessage))
  }

  /// For tests that load outputs with pandas 3 from `.venv-clients-pandas3/` too.
  public static var needsPandas3Client: Self {
    .enabled(
      if: TestEnvironment.runsPandas3Tests,
      Comment(rawValue: ".venv-clients-pandas3 is absent (run scripts/python-clients.sh): skipped"))
  }

  /// For tests on big inputs (hundreds of MB, long runs): skipped by `make test`, run by `make stress`,
  /// which sets `HEALTHPORT_STRESS=1`.
  public static var stress: Self {
    .enabled(
      if: TestEnvironment.runsStressTests,
      Comment(rawValue: "a big-input stress test: skipped (make stress runs it)"))
  }

  /// For tests that start a throwaway PostgreSQL cluster (``PostgresCluster``): skipped with a
  /// message where the server's binaries are absent, run (and so failing) where CI forbids skipping.
  public static var needsPostgres: Self {
    .enabled(
      if: PostgresCluster.isAvailable || TestEnvironment.skippingForbidden,
      Comment(rawValue: PostgresCluster.skipMessage))
  }
}
