// The Google Benchmark runner for every benchmark in benchmarks/.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
