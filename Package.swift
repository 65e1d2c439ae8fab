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

    // Thin wrappers.
    .target(name: "XMLStream", dependencies: ["CLibXML2"], swiftSettings: hotPath),
    .target(name: "ZipStream", dependencies: ["CArchive"]),

    // The reusable core: model, reading, filtering, aggregation, writing.
    .target(name: "HealthPort", dependencies: ["XMLStream", "ZipStream"], swiftSettings: hotPath),

    // The command-line tool.
    .executableTarget(name: "healthport", dependencies: ["HealthPort"]),

    .testTarget(name: "HealthPortTests", dependencies: ["HealthPort"]),
    .testTarget(name: "EndToEndTests", dependencies: ["healthport"]),
  ],
  swiftLanguageModes: [.v6]
)
