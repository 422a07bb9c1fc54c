// A validation's request digest: SHA-256 over the effective request and the checksums of the
// runs it validated, so that the same evidence validated twice is recognised, whether the CLI
// computed it here or a server did. Both compute it with these functions from the core's
// resolved options, never from a front end's request.
//
// The canonical form (RequestDigestText) is UTF-8 text, one item per line, each line ending in
// "\n" and its words separated by one space. A number is decimal; a double is the 16 lowercase
// hexadecimal digits of its IEEE-754 bit pattern; a string is its length in bytes, ':' and its
// bytes; an absent value is "-". The lines, in this order:
//
//   wasserwarp.request_digest.v1
//   order D
//   nu D
//   lambda D
//   p D
//   time_window D|-
//   channels N S...                 the channels asked for (none: every common one)
//   align NAME                      AlignName: "start" or "none"
//   scale NAME                      ScaleName
//   resample_rate D|-
//   resampling NAME|-               ResamplingName, "-" when resample_rate is set
//   channel_map N S S S...          only with a map: simulated, reference channel and unit
//   strict_units 1                  only when set
//   simulation_weights N D...       the raw weights as given (none: uniform)
//   reference_weights N D...
//   verdict -                       without a verdict, else:
//   verdict PERMUTATIONS SEED MAX_DISTANCE MAX_RATIO ALPHA FLOOR RATIO_RULE RATIO_CONFIDENCE
//                                   max_* and alpha D|-, FLOOR 0|1, RATIO_RULE RatioRuleName
//   quantities N S...               each "channel:quantity", e.g. "ay:max", in request order
//   study S                         the study's own settings as the caller writes them ("" for
//                                   a plain validation)
//   runs N
//   run ROLE S CHECKSUM             N lines: simulated runs, then reference runs, in report
//                                   order; ROLE "simulation" or "reference", S the run's id,
//                                   CHECKSUM RunChecksumHex of its samples
//   units N S...                    after a run's line, only for a run that carries units
//
// Left out, as they change neither the result nor what it is of: labels, threads, progress,
// which matrices and pages are kept or sent (include_*), and `exhaustive`, which changes how
// many pairs are computed but never the distance, plan or verdict.

#ifndef WASSERWARP_REQUEST_DIGEST_H_
#define WASSERWARP_REQUEST_DIGEST_H_

#include <string>
#include <string_view>

#include "wasserwarp/runs_view.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {

// The canonical form above.
std::string RequestDigestText(const ValidationOptions& options, const RunsView& simulation,
                              const RunsView& reference, std::string_view study = {});

// Sha256Hex of RequestDigestText: 64 lowercase hexadecimal digits.
std::string RequestDigest(const ValidationOptions& options, const RunsView& simulation,
                          const RunsView& reference, std::string_view study = {});

}  // namespace wasserwarp

#endif  // WASSERWARP_REQUEST_DIGEST_H_
