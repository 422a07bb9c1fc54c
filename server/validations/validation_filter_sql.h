// A ValidationFilter and a ValidationOrder as SQL, for the SQLite and the PostgreSQL store, so
// that a listing filters and sorts in the database (one page of rows read, however many
// validations a caller has) and both stores mean the same by every filter.
//
// The SQL assumes this schema, with `validations` aliased `v` in the caller's query:
//   validations (key int64 PRIMARY KEY, state int NOT NULL (ValidationState's numbers 1..5),
//                passed: NULL while there is no decision, else 0/1 in SQLite, boolean in
//                PostgreSQL,
//                create_time_ns int64 NOT NULL (absl::ToUnixNanos))
//   validation_labels (validation_key int64 REFERENCES validations (key), key text, value text),
//                one row per label, best with PRIMARY KEY (validation_key, key) so that each
//                label comparison is one index lookup.
// Table alias `l` is used inside the label subqueries.
//
// What each comparison means, where the filter's text alone leaves it open:
// - labels.k != "x" holds for a validation without the label k, too: it is the negation of
//   labels.k = "x", as AIP-160 negates (`NOT a = b` and `a != b` agree). There is no way yet to
//   ask for a label's presence; labels.k = "x" implies it.
// - outcome.passed != true holds for a validation without a decision (passed NULL: not
//   SUCCEEDED, or succeeded without a verdict) and for one that failed its verdict;
//   outcome.passed = false only for the latter.
// - create_time compares at nanosecond precision; times outside int64 nanoseconds (before 1677
//   or after 2262) saturate, which keeps every comparison's answer for the stored times.

#ifndef WASSERWARP_SERVER_VALIDATIONS_VALIDATION_FILTER_SQL_H_
#define WASSERWARP_SERVER_VALIDATIONS_VALIDATION_FILTER_SQL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "validations/validation_filter.h"

namespace wasserwarp::service {

enum class SqlDialect {
  kSqlite,    // `?` placeholders, numbered by SQLite in the order they appear
  kPostgres,  // `$N` placeholders
};

// A parameter to bind: an integer (SQLite's INTEGER, PostgreSQL's int8 in binary or its decimal
// text) or text. The SQL casts where PostgreSQL could not infer a type from text alone, so
// either way of binding works.
using SqlValue = std::variant<int64_t, std::string>;

struct SqlCondition {
  // A boolean expression over `v`; "1=1" for a filter without terms, so that it can always
  // follow "WHERE ... AND ". It is comparisons joined by AND without parentheses around them:
  // put it in parentheses before combining it with OR.
  std::string where;
  // One per placeholder, in placeholder order: SQLite binds them as `?`s numbered after the
  // caller's earlier ones; PostgreSQL's are $first_param, $first_param + 1, ...
  std::vector<SqlValue> params;
};

// `filter` as a WHERE condition in `dialect`; `first_param` is the number of the first `$N`
// (PostgreSQL only: SQLite's `?`s number themselves).
SqlCondition ValidationFilterSql(const ValidationFilter& filter, SqlDialect dialect,
                                 int first_param = 1);

// "v.create_time_ns DESC, v.key DESC" or the same ascending: the key breaks ties between
// validations created in the same nanosecond, so that pages neither repeat nor skip one.
std::string_view ValidationOrderSql(ValidationOrder order);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_VALIDATIONS_VALIDATION_FILTER_SQL_H_
