// The fair order of ValidationStore::Claim as SQL, for the SQLite and the PostgreSQL store, so
// that both claim the same validation from the same rows: of the owners with claimable
// validations (QUEUED, or RUNNING under an expired lease) and fewer than the limit RUNNING under
// live leases, the owner with the fewest running, ties to the one whose last start is oldest
// (never started first), then to the oldest validation; that owner's oldest claimable one.
//
// Placeholders: 1 QUEUED's number, 2 RUNNING's, 3 now in Unix nanoseconds, 4 the limit of
// running validations per owner. The claimed row is `v`.

#ifndef WASSERWARP_SERVER_VALIDATIONS_FAIR_CLAIM_SQL_H_
#define WASSERWARP_SERVER_VALIDATIONS_FAIR_CLAIM_SQL_H_

#include <string>

#include "validations/validation_filter_sql.h"

namespace wasserwarp::service {

// "FROM ... ORDER BY ... LIMIT 1", to follow "SELECT <columns of v> ".
std::string FairClaimFromSql(SqlDialect dialect);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_VALIDATIONS_FAIR_CLAIM_SQL_H_
