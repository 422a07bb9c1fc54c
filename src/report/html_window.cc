#include "report/html_window.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/html_text.h"
#include "wasserwarp/event_window.h"

namespace wasserwarp {
namespace {

std::string TriggerRows(absl::string_view side, const std::vector<RunSummary>& runs) {
  std::string rows;
  for (const RunSummary& run : runs) {
    absl::StrAppend(
        &rows, "<tr>", Cell("td", side), Cell("td", EscapeHtml(run.id)),
        Cell("td",
             run.trigger_time.has_value() ? absl::StrCat(FormatNumber(*run.trigger_time, 9), " s")
                                          : "\u2014",
             "num"),
        "</tr>\n");
  }
  return rows;
}

}  // namespace

std::string WindowSectionHtml(const ValidationReport& report) {
  if (!report.window.has_value()) return "";
  const EventWindow& window = *report.window;
  std::vector<std::string> notes;
  for (const UntriggeredRun& run : report.untriggered) {
    notes.push_back(UntriggeredNote(run, window));
  }
  return absl::StrCat(
      "<section id=\"event-window\">\n<h2>Event window</h2>\n"
      "<table class=\"keyvalue\"><tbody>\n",
      KeyValueRow("Trigger",
                  absl::StrCat("<code>", EscapeHtml(WindowConditionText(window)), "</code>")),
      KeyValueRow("Window", absl::StrCat("[\u2212", FormatNumber(window.before, 6), " s, +",
                                         FormatNumber(window.after, 6),
                                         " s] <span class=\"unit\">around the trigger, which "
                                         "is at time 0</span>")),
      KeyValueRow("Hysteresis", FormatNumber(window.hysteresis, 6)), "</tbody></table>\n",
      WarningsHtml(notes),
      "<table class=\"inputs\"><thead><tr><th></th><th>Run</th><th class=\"num\">Trigger "
      "(own time axis)</th></tr></thead><tbody>\n",
      TriggerRows("Simulated", report.simulation), TriggerRows("Reference", report.reference),
      "</tbody></table>\n</section>\n");
}

RunsView WindowedRunsOf(const ValidationReport& report, const RunsView& runs,
                        const std::string& side) {
  std::vector<const Series*> kept;
  for (const Series& run : runs) {
    bool left_out = false;
    for (const UntriggeredRun& untriggered : report.untriggered) {
      left_out = left_out || (untriggered.side == side && untriggered.id == run.id);
    }
    if (!left_out) kept.push_back(&run);
  }
  return RunsView(std::move(kept));
}

}  // namespace wasserwarp
