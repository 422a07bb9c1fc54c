#include "validations/fair_claim_sql.h"

#include "absl/strings/str_replace.h"

namespace wasserwarp::service {
namespace {

// In PostgreSQL's placeholders; SQLite takes the same numbers as ?N. Every claimable row is a
// candidate, in the fair order, rather than each owner's oldest alone: a replica whose first
// choice another is claiming right now (PostgreSQL's SKIP LOCKED) takes the next.
constexpr char kFairClaimFrom[] =
    "FROM (SELECT w.owner,"
    " (SELECT count(*) FROM validations r WHERE r.owner = w.owner AND r.state = $2"
    " AND r.lease_expire_ns > $3) AS running,"
    " (SELECT coalesce(max(s.start_time_ns), 0) FROM validations s WHERE s.owner = w.owner)"
    " AS last_start"
    " FROM validations w WHERE w.state = $1 OR (w.state = $2 AND w.lease_expire_ns <= $3)"
    " GROUP BY w.owner) o"
    " JOIN validations v ON v.owner = o.owner"
    " AND (v.state = $1 OR (v.state = $2 AND v.lease_expire_ns <= $3))"
    " WHERE o.running < $4 ORDER BY o.running, o.last_start, v.key LIMIT 1";

}  // namespace

std::string FairClaimFromSql(SqlDialect dialect) {
  if (dialect == SqlDialect::kPostgres) return kFairClaimFrom;
  return absl::StrReplaceAll(kFairClaimFrom, {{"$", "?"}});
}

}  // namespace wasserwarp::service
