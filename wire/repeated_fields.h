// Copies between protobuf's repeated fields and std::vector, for the wire translations: one
// definition that convert.cc, parameters.cc and study.cc share.

#ifndef WASSERWARP_WIRE_REPEATED_FIELDS_H_
#define WASSERWARP_WIRE_REPEATED_FIELDS_H_

#include <string>
#include <vector>

#include "google/protobuf/repeated_field.h"

namespace wasserwarp::wire {

// RepeatedField<T> or RepeatedPtrField<std::string> as a vector of its elements.
template <class Repeated>
std::vector<typename Repeated::value_type> ToVector(const Repeated& repeated) {
  return {repeated.begin(), repeated.end()};
}

template <class T, class Allocator>
void Assign(const std::vector<T, Allocator>& values, google::protobuf::RepeatedField<T>* field) {
  field->Assign(values.begin(), values.end());
}

inline void Assign(const std::vector<std::string>& values,
                   google::protobuf::RepeatedPtrField<std::string>* field) {
  field->Assign(values.begin(), values.end());
}

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_REPEATED_FIELDS_H_
