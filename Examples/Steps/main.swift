// Steps per day from an Apple Health export through the HealthPort library: the same bytes as
// `healthport steps EXPORT --by day --format csv` (with PRODUCT: `--source-product PRODUCT`).
//
//     swift run healthport-example-steps Samples/export.zip [Watch]
import Foundation
import HealthPort

let arguments = Array(CommandLine.arguments.dropFirst())
guard (1...2).contains(arguments.count) else {
  FileHandle.standardError.write(Data("usage: healthport-example-steps EXPORT [PRODUCT]\n".utf8))
  exit(2)
}
do {
  // Per local day, a sample rewritten by its source counted once: what `healthport steps` sums.
  let totals = StepTotals(StepTotals.Configuration())
  // Only samples whose source product (Watch, iPhone, …) or source name matches, when given.
  let filter = ExportFilter(sourceProducts: Array(arguments.dropFirst()))
  // The reader streams the export (zip, XML or folder) into the filter, which passes on to the totals.
  try ExportReader(path: arguments[0]).read(into: FilteringSink(filter: filter, next: totals))
  print("\"period\",\"steps\",\"samples\"")
  for day in totals.result {
    print("\(day.period),\(NumberText.exact(day.value)),\(day.samples)")
  }
} catch {
  FileHandle.standardError.write(Data("healthport-example-steps: \(error)\n".utf8))
  exit(1)
}
