/// What a SQL or columnar store (SQLite, Parquet) needs to name and find the catalog's columns.
extension TableColumn {
  /// The name in snake_case, as SQL spells columns: `totalEnergyBurned` → `total_energy_burned`.
  package var snakeCaseName: String { Self.snakeCase(name) }

  /// `totalEnergyBurned` → `total_energy_burned`; `DateOfBirth` → `date_of_birth`.
  package static func snakeCase(_ name: String) -> String {
    var snakeCase = ""
    for character in name {
      if character.isUppercase {
        if !snakeCase.isEmpty { snakeCase.append("_") }
        snakeCase.append(contentsOf: character.lowercased())
      } else {
        snakeCase.append(character)
      }
    }
    return snakeCase
  }
}

extension TableDefinition {
  /// The column called `name`: a name the table lacks is a programming error.
  package func column(_ name: String) -> TableColumn {
    guard let position = position(of: name) else { preconditionFailure("table \(self.name) has no column \(name)") }
    return columns[position]
  }
}
