import Foundation
import Testing

@testable import HealthPort

/// One table router for `--split` and Parquet: each writer only receives the rows
/// ``TableRowRouter`` finds, and the router numbers a typed element's children as the element
/// they are written as.
struct TableRowRouterTests {
  @Test("--split is a receiver of the table router, as Parquet is")
  func splitReceivesTheRoutersRows() {
    let writer: Any.Type = CSVSplitWriter.self
    #expect(writer is TableRowReceiver.Type)
  }

  @Test("a typed element's subtree takes one id per element of the XML it is written as")
  func typedCountsAreNodeCounts() throws {
    let input = try CSVTestFiles.file(CSVSplitTests.oddExport, name: "export.xml")
    let sink = CollectingSink()
    try ExportReader(path: input.path).read(into: sink)
    var checked = 0
    for element in sink.elements {
      let typed: Int
      let node: ElementNode
      switch element {
      case .record(let record):
        typed = TableRowRouter.subtree(record.children)
        node = NodeEmitter.node { $0.emit(record) }
      case .correlation(let correlation):
        typed = TableRowRouter.subtree(correlation.children)
        node = NodeEmitter.node { $0.emit(correlation) }
      case .workout(let workout):
        typed = TableRowRouter.subtree(workout.children)
        node = NodeEmitter.node { $0.emit(workout) }
      default: continue
      }
      #expect(typed == TableRowRouter.count(node), "\(node.name)")
      checked += 1
    }
    // Three Records, a Correlation and a Workout with events, an activity, statistics and a route.
    #expect(checked == 5)
  }
}
