import TestSupport
import Testing

@testable import HealthPort

@Suite("Workout totals")
struct WorkoutTotalsTests {
  static func date(_ text: String) -> HealthDate { HealthDate(text)! }

  static func statistics(_ type: String, sum: String, unit: String) -> Workout.Child {
    .statistics(
      WorkoutStatistics(
        type: "HKQuantityTypeIdentifier" + type, startDate: date("2024-05-01 08:00:00 +0200"),
        endDate: date("2024-05-01 10:00:00 +0200"), sum: sum, unit: unit))
  }

  static func workout(_ activity: String, start: String = "2024-05-01 08:00:00 +0200") -> Workout {
    Workout(
      workoutActivityType: "HKWorkoutActivityType" + activity, duration: "90", durationUnit: "min",
      sourceName: "Watch", startDate: date(start), endDate: date("2024-05-01 10:00:00 +0200"))
  }

  @Test("multisport: every direct Distance statistic adds up; nested activity statistics do not")
  func multisport() throws {
    var workout = Self.workout("SwimBikeRun")
    workout.children = [
      Self.statistics("DistanceSwimming", sum: "1500", unit: "m"),
      Self.statistics("DistanceCycling", sum: "40", unit: "km"),
      Self.statistics("DistanceWalkingRunning", sum: "6.2137119", unit: "mi"),  // 10 km
      Self.statistics("ActiveEnergyBurned", sum: "4184", unit: "kJ"),  // 1000 kcal
      Self.statistics("BasalEnergyBurned", sum: "200", unit: "kcal"),  // not active energy
      Self.statistics("HeartRate", sum: "1", unit: "count/min"),
      .activity(
        {
          var activity = WorkoutActivity(uuid: "A", startDate: Self.date("2024-05-01 08:00:00 +0200"))
          activity.children = [
            .statistics(
              WorkoutStatistics(
                type: "HKQuantityTypeIdentifierDistanceSwimming", startDate: Self.date("2024-05-01 08:00:00 +0200"),
                endDate: Self.date("2024-05-01 08:30:00 +0200"), sum: "1500", unit: "m"))
          ]
          return activity
        }()),
    ]
    var configuration = WorkoutTotals.Configuration()
    let row = try WorkoutTotals.row(for: workout, configuration: configuration, sequence: 0)
    #expect(abs((row.distance ?? 0) - 51.5) < 1e-6)
    #expect(abs((row.energy ?? 0) - 1000) < 1e-6)
    #expect(row.durationMinutes == 90)
    #expect(row.activity == "SwimBikeRun")
    configuration.distanceUnit = "mi"
    configuration.energyUnit = "kJ"
    let miles = try WorkoutTotals.row(for: workout, configuration: configuration, sequence: 0)
    #expect(abs((miles.distance ?? 0) - 51.5 / 1.609344) < 1e-6)
    #expect(abs((miles.energy ?? 0) - 4184) < 1e-6)
  }

  @Test("attributes win over statistics; a present zero is zero; nothing known is nil")
  func attributes() throws {
    var workout = Self.workout("Yoga")
    workout.totalDistance = "0"
    workout.totalDistanceUnit = "km"
    workout.totalEnergyBurned = "120"
    workout.totalEnergyBurnedUnit = "Cal"
    workout.children = [Self.statistics("DistanceWalkingRunning", sum: "3", unit: "km")]
    let row = try WorkoutTotals.row(for: workout, configuration: .init(), sequence: 0)
    #expect(row.distance == 0)
    #expect(row.energy == 120)
    var bare = Self.workout("Yoga")
    bare.duration = "3600"
    bare.durationUnit = "s"
    let empty = try WorkoutTotals.row(for: bare, configuration: .init(), sequence: 0)
    #expect(empty.distance == nil && empty.energy == nil)
    #expect(empty.durationMinutes == 60)
  }

  @Test("an unknown unit is an error naming it")
  func unknownUnit() {
    var workout = Self.workout("Running")
    workout.totalDistance = "5"
    workout.totalDistanceUnit = "furlong"
    #expect {
      _ = try WorkoutTotals.row(for: workout, configuration: .init(), sequence: 0)
    } throws: { error in
      (error as? HealthPortError)?.message.contains("'furlong'") == true
    }
  }

  @Test("rows ascend by start; the summary sorts by count, then name")
  func ordering() throws {
    let totals = WorkoutTotals(.init())
    for (activity, start) in [
      ("Walking", "2024-05-03 08:00:00 +0200"), ("Running", "2024-05-01 08:00:00 +0200"),
      ("Cycling", "2024-05-02 08:00:00 +0200"), ("Walking", "2024-05-01 07:00:00 +0200"),
      ("Cycling", "2024-05-01 06:00:00 +0000"),
    ] {
      try totals.add(Self.workout(activity, start: start))
    }
    try totals.end(ReadReport(documentName: "x", format: .xml))
    #expect(
      totals.rows.map(\.start.description) == [
        "2024-05-01 07:00:00 +0200", "2024-05-01 08:00:00 +0200", "2024-05-01 06:00:00 +0000",
        "2024-05-02 08:00:00 +0200", "2024-05-03 08:00:00 +0200",
      ])
    #expect(totals.summary.map(\.activity) == ["Cycling", "Walking", "Running"])
    #expect(totals.summary.map(\.count) == [2, 2, 1])
  }

  /// `Tests/Fixtures/workouts/heart-rate.xml`: a run (09:10–09:40) and a Strava ride without
  /// heart-rate statistics, a yoga session with them (88.5, max 101). The run's own source and
  /// device recorded 102 … 129 bpm every 3 minutes from 09:12 and 160 at 09:40: 1315 / 11, max
  /// 160; the ride has one record of its own, 130.
  @Test("the second pass reads a file again for the workouts without heart-rate statistics; stdin has none")
  func heartRatePass() throws {
    let path = TestEnvironment.repoRoot.appendingPathComponent("Tests/Fixtures/workouts/heart-rate.xml").path
    func firstPass() throws -> WorkoutTotals {
      let totals = WorkoutTotals(.init())
      try ExportReader(path: path).read(into: totals)
      return totals
    }
    func heartRates(_ totals: WorkoutTotals) -> [String: [Double?]] {
      Dictionary(uniqueKeysWithValues: totals.rows.map { ($0.activity, [$0.averageHeartRate, $0.maximumHeartRate]) })
    }
    let read = try firstPass()
    #expect(heartRates(read) == ["Running": [nil, nil], "Cycling": [nil, nil], "Yoga": [88.5, 101]])
    let rewrites = try read.readHeartRates(from: path, options: ReadOptions())
    #expect(rewrites?.isEmpty == true)
    #expect(heartRates(read) == ["Running": [1315.0 / 11, 160], "Cycling": [130, 130], "Yoga": [88.5, 101]])
    #expect(read.summary.first { $0.activity == "Running" }?.averageHeartRate == 1315.0 / 11)
    for stdin in [nil, "-"] {
      let piped = try firstPass()
      #expect(try piped.readHeartRates(from: stdin, options: ReadOptions()) == nil)
      #expect(heartRates(piped)["Running"] == [nil, nil])
    }
  }
}
