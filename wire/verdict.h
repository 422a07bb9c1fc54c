// The verdict between the core and the wire: what a request asks for (VerdictParameters) and
// what a report says (Verdict).

#ifndef WASSERWARP_WIRE_VERDICT_H_
#define WASSERWARP_WIRE_VERDICT_H_

#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp::wire {

// The verdict a request asks for: the README's defaults where fields are unset.
VerdictOptions VerdictOptionsFromProto(const v1::VerdictParameters& params);
// Every field set.
v1::VerdictParameters VerdictParametersOf(const VerdictOptions& options);

void VerdictToProto(const Verdict& verdict, v1::Verdict& proto);
Verdict VerdictFromProto(const v1::Verdict& proto);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_VERDICT_H_
