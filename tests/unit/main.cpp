// The doctest runner for every unit test (the test files live in one folder per layer).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
