#include "validations/validation_filter_sql.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"

namespace wasserwarp::service {
namespace {

// Collects parameters and names their placeholders.
class ConditionBuilder {
 public:
  ConditionBuilder(SqlDialect dialect, int first_param)
      : dialect_(dialect), next_param_(first_param) {}

  std::string Param(SqlValue value) {
    params_.push_back(std::move(value));
    if (dialect_ == SqlDialect::kSqlite) return "?";
    return absl::StrCat("$", next_param_++);
  }

  std::string Term(const FilterTerm& term) {
    const bool equal = term.op == FilterOperator::kEqual;
    switch (term.field) {
      case FilterField::kLabel: {
        // The key's placeholder first: params follow the text's order.
        std::string key = Param(term.label_key);
        std::string value = Param(std::get<std::string>(term.value));
        return absl::StrCat(equal ? "" : "NOT ",
                            "EXISTS (SELECT 1 FROM validation_labels l WHERE l.validation_key = "
                            "v.key AND l.key = ",
                            key, " AND l.value = ", value, ")");
      }
      case FilterField::kState:
        return absl::StrCat("v.state ", FilterOperatorText(term.op), " ",
                            Param(static_cast<int64_t>(std::get<ValidationState>(term.value))));
      case FilterField::kPassed: {
        const bool passed = std::get<bool>(term.value);
        // Null-safe inequality, so that "!= true" includes validations without a decision.
        if (dialect_ == SqlDialect::kSqlite) {
          return absl::StrCat("v.passed ", equal ? "= " : "IS NOT ",
                              Param(int64_t{passed ? 1 : 0}));
        }
        // Text bound untyped, cast here: the column is boolean and PostgreSQL has no
        // boolean = bigint, so an integer parameter would not do.
        return absl::StrCat("v.passed ", equal ? "= " : "IS DISTINCT FROM ",
                            Param(std::string(passed ? "true" : "false")), "::boolean");
      }
      case FilterField::kCreateTime:
        return absl::StrCat("v.create_time_ns ", FilterOperatorText(term.op), " ",
                            Param(absl::ToUnixNanos(std::get<absl::Time>(term.value))));
    }
    return "1=1";
  }

  std::vector<SqlValue> TakeParams() { return std::move(params_); }

 private:
  SqlDialect dialect_;
  int next_param_;
  std::vector<SqlValue> params_;
};

}  // namespace

SqlCondition ValidationFilterSql(const ValidationFilter& filter, SqlDialect dialect,
                                 int first_param) {
  if (filter.terms.empty()) return {.where = "1=1", .params = {}};
  ConditionBuilder builder(dialect, first_param);
  std::vector<std::string> terms;
  terms.reserve(filter.terms.size());
  for (const FilterTerm& term : filter.terms) terms.push_back(builder.Term(term));
  return {.where = absl::StrJoin(terms, " AND "), .params = builder.TakeParams()};
}

std::string_view ValidationOrderSql(ValidationOrder order) {
  return order == ValidationOrder::kNewestFirst ? "v.create_time_ns DESC, v.key DESC"
                                                : "v.create_time_ns ASC, v.key ASC";
}

}  // namespace wasserwarp::service
