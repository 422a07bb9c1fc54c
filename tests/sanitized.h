// Whether this build runs under a sanitizer (GCC says so with a macro, Clang with
// __has_feature): such a build reserves terabytes of shadow memory and keeps freed memory in
// quarantine, so tests of memory limits and returned memory hold it to less.

#ifndef WASSERWARP_TESTS_SANITIZED_H_
#define WASSERWARP_TESTS_SANITIZED_H_

namespace wasserwarp::test_support {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace wasserwarp::test_support

#endif  // WASSERWARP_TESTS_SANITIZED_H_
