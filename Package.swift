// swift-tools-version:6.0
import PackageDescription

/// Release builds of the streaming modules skip the dynamic exclusivity checks: the hot path runs
/// once per attribute of millions of elements, and the static checks still apply.
let hotPath: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
  name: "healthport",
  products: [
    .library(name: "HealthPort", targets: ["HealthPort"]),
    .executable(name: "healthport", targets: ["healthport"]),
  ],
  targets: [
    // System libraries from Debian packages; each is imported by exactly one wrapper module.
    .systemLibrary(
      name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
    .systemLibrary(
      name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
    .systemLibrary(name: "CSnappy", pkgConfig: "snappy", providers: [.apt(["libsnappy-dev"])]),
    // libpq is opened when a load first connects, not linked (Sources/CLibPQ/shim.h).
    .systemLibrary(name: "CLibPQ", providers: [.apt(["libpq-dev"])]),

    // Thin wrappers.
    .target(name: "XMLStream", dependencies: ["CLibXML2"], swiftSettings: hotPath),
    .target(name: "ZipStream", dependencies: ["CArchive"]),
    .target(name: "SQLiteStore", dependencies: ["CSQLite"], swiftSettings: hotPath),
    .target(name: "PostgresClient", dependencies: ["CLibPQ"], swiftSettings: hotPath),

    // A Parquet file writer with no health knowledge: the only importer of libzstd and libsnappy.
    .target(name: "ParquetFile", dependencies: ["CZstd", "CSnappy"], swiftSettings: hotPath),

    // The reusable core: model, reading, filtering, aggregation, writing.
    .target(name: "HealthPort", dependencies: ["XMLStream", "ZipStream"], swiftSettings: hotPath),

    // Loading into SQLite, kept apart so that the core does not link libsqlite3.
    .target(name: "HealthPortSQLite", dependencies: ["HealthPort", "SQLiteStore"], swiftSettings: hotPath),

    // Loading into PostgreSQL: the SQLite store's rows, sent through libpq.
    .target(
      name: "HealthPortPostgres", dependencies: ["HealthPort", "HealthPortSQLite", "SQLiteStore", "PostgresClient"],
      swiftSettings: hotPath),

    // Parquet datasets, kept apart so that the core does not link libzstd and libsnappy.
    .target(name: "HealthPortParquet", dependencies: ["HealthPort", "ParquetFile"], swiftSettings: hotPath),

    // The command-line tool.
    .executableTarget(
      name: "healthport", dependencies: ["HealthPort", "HealthPortSQLite", "HealthPortPostgres", "HealthPortParquet"]),

    // The library's example (docs: HealthPort.docc): steps per day through the public API; built
    // with the tests, which compare its output with `healthport steps`.
    .executableTarget(name: "healthport-example-steps", dependencies: ["HealthPort"], path: "Examples/Steps"),

    // libFuzzer targets (`make fuzz`); a plain build replays inputs given as arguments. The driver
    // they share is FuzzSupport's.
    .target(name: "FuzzSupport", dependencies: ["HealthPort"], path: "Fuzz/Support"),
    .executableTarget(name: "fuzz-xml", dependencies: ["FuzzSupport", "HealthPort"], path: "Fuzz/XMLReader"),
    .executableTarget(name: "fuzz-csv", dependencies: ["FuzzSupport", "HealthPort"], path: "Fuzz/CSVReader"),
    .executableTarget(name: "fuzz-jsonl", dependencies: ["FuzzSupport", "HealthPort"], path: "Fuzz/JSONLinesReader"),
    .executableTarget(name: "fuzz-par", dependencies: ["FuzzSupport", "HealthPort"], path: "Fuzz/ParallelReader"),
    .executableTarget(name: "fuzz-gpx", dependencies: ["FuzzSupport", "HealthPort"], path: "Fuzz/GPXReader"),
    .executableTarget(name: "fuzz-ecg", dependencies: ["FuzzSupport", "HealthPort"], path: "Fuzz/ECGReader"),

    // What both test targets share: where the real fixtures and the pinned Python readers are.
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    .testTarget(
      name: "HealthPortTests", dependencies: ["HealthPort", "HealthPortSQLite", "SQLiteStore", "TestSupport"]),
    .testTarget(
      name: "EndToEndTests", dependencies: ["healthport", "healthport-example-steps", "TestSupport"]),
    .testTarget(name: "ParquetFileTests", dependencies: ["ParquetFile", "TestSupport"]),
    .testTarget(
      name: "HealthPortParquetTests", dependencies: ["HealthPortParquet", "HealthPort", "ParquetFile", "TestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
