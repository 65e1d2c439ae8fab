import Testing

extension Trait where Self == ConditionTrait {
  /// For tests that read `../shared/fixtures/real/`: skipped with a message where it is absent,
  /// run (and so failing) where CI forbids skipping.
  public static var needsRealFixtures: Self {
    .enabled(if: TestEnvironment.runsRealFixtureTests, Comment(rawValue: TestEnvironment.skipMessage))
  }

  /// For tests that load outputs with the pinned Python readers of `.venv-clients/`.
  public static var needsPythonClients: Self {
    .enabled(if: TestEnvironment.runsClientTests, Comment(rawValue: TestEnvironment.clientSkipMessage))
  }
}

/// A test that fails where CI forbids skipping but a skipped test's inputs are missing: so that
/// parameterised fixture tests, which simply have no cases without the folder, cannot pass empty.
@Suite("the test environment")
struct TestEnvironmentTests {
  @Test("../shared/fixtures/real is present where CI needs it", .enabled(if: TestEnvironment.skippingForbidden))
  func realFixturesPresent() {
    #expect(TestEnvironment.hasRealFixtures, "\(TestEnvironment.realFixtures.path) is missing")
  }

  @Test("the pinned Python clients are installed where CI needs them", .enabled(if: TestEnvironment.skippingForbidden))
  func clientsPresent() {
    #expect(TestEnvironment.hasClientPython, "\(TestEnvironment.clientPython.path) is missing")
    #expect(TestEnvironment.duckDBSQLiteExtension != nil, "the duckdb-ext-sqlite wheel's extension is missing")
  }
}
