// The translation unit that builds one of the tests' precompiled headers (tests/CMakeLists.txt):
// CMake compiles a header only for a target with a source, and tests reuse what it built.
