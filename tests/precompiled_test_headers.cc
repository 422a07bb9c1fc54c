// The translation unit that builds the tests' precompiled header (tests/CMakeLists.txt): CMake
// compiles a header only for a target with a source, and every test reuses what this one built.
