#include "validations/fair_claim_sql.h"

#include "absl/strings/str_replace.h"

namespace wasserwarp::service {
namespace {

// In PostgreSQL's placeholders; SQLite takes the same numbers as ?N.
constexpr char kFairClaimFrom[] =
    "FROM (SELECT w.owner, min(w.key) AS oldest,"
    " (SELECT count(*) FROM validations r WHERE r.owner = w.owner AND r.state = $2"
    " AND r.lease_expire_ns > $3) AS running,"
    " (SELECT coalesce(max(s.start_time_ns), 0) FROM validations s WHERE s.owner = w.owner)"
    " AS last_start"
    " FROM validations w WHERE w.state = $1 OR (w.state = $2 AND w.lease_expire_ns <= $3)"
    " GROUP BY w.owner) o"
    " JOIN validations v ON v.key = o.oldest WHERE o.running < $4"
    " ORDER BY o.running, o.last_start, o.oldest LIMIT 1";

}  // namespace

std::string FairClaimFromSql(SqlDialect dialect) {
  if (dialect == SqlDialect::kPostgres) return kFairClaimFrom;
  return absl::StrReplaceAll(kFairClaimFrom, {{"$", "?"}});
}

}  // namespace wasserwarp::service
