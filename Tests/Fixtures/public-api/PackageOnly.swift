// Uses declarations that only the package sees: PublicAPITests expects each line to fail to
// type-check outside the package.
import HealthPort

_ = NumberText.grouped(1234)
_ = ExportFilter().isEmpty
_ = ReadReport.self == ReadReport.self ? StepTotals.stepType : ""
