/// Something the caller of a load should tell: a note in words, or an export that looks like
/// another person's, as data.
package enum LoadWarning: Sendable, Equatable {
  /// A note in words (a CSV input with a header but no rows).
  case text(String)
  /// The export at `path` has another date of birth or biological sex than the one the database
  /// holds for `person` (empty: the default person).
  case anotherPersonsMe(path: String, person: String)
  /// The export at `path` looks like another person's: the database holds records of `person` from
  /// `heldFirstDay` to `heldLastDay`, the export's run from `firstDay` to `lastDay`, and `reasons`
  /// say why (few of its records were already there, no source name in common).
  case anotherPersonsRecords(
    path: String, person: String, heldFirstDay: String, heldLastDay: String, firstDay: String, lastDay: String,
    reasons: [String])
}
