import TestSupport
import Testing

/// A test that fails where CI forbids skipping but a skipped test's inputs are missing: so that
/// parameterised fixture tests, which simply have no cases without the folder, cannot pass empty.
@Suite("the test environment")
struct TestEnvironmentTests {
  static let ciOnly = Comment(rawValue: "checks CI's set-up: runs where HEALTHPORT_REQUIRE_FIXTURES=1 (.ci/run)")

  @Test("../shared/fixtures/real is present where CI needs it", .enabled(if: TestEnvironment.skippingForbidden, ciOnly))
  func realFixturesPresent() {
    #expect(TestEnvironment.hasRealFixtures, "\(TestEnvironment.realFixtures.path) is missing")
  }

  @Test(
    "../shared/bench/gen_export.py is present where CI needs it",
    .enabled(if: TestEnvironment.skippingForbidden, ciOnly))
  func exportGeneratorPresent() {
    #expect(TestEnvironment.hasExportGenerator, "\(TestEnvironment.exportGenerator.path) is missing")
  }

  @Test(
    "the pinned Python clients are installed where CI needs them",
    .enabled(if: TestEnvironment.skippingForbidden, ciOnly))
  func clientsPresent() {
    #expect(TestEnvironment.hasClientPython, "\(TestEnvironment.clientPython.path) is missing")
    #expect(TestEnvironment.hasPandas3Python, "\(TestEnvironment.pandas3Python.path) is missing")
    #expect(TestEnvironment.duckDBSQLiteExtension != nil, "the duckdb-ext-sqlite wheel's extension is missing")
  }
}
