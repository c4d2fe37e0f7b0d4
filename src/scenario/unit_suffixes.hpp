#pragma once
// The unit suffixes the parsers in units.cpp accept, for the JSON Schema's patterns (schema.cpp);
// private to the scenario layer. Each list is the parser's own table, so the two cannot drift.
#include <string_view>
#include <vector>

#include "ckptsim/scenario/units.hpp"

namespace ckptsim {

std::vector<std::string_view> duration_suffixes();   ///< "ns" ... "d"
std::vector<std::string_view> byte_suffixes();       ///< "B", "KB" ... "PiB"
std::vector<std::string_view> bandwidth_suffixes();  ///< "bps" ... "TiB/s"
std::vector<std::string_view> flop_rate_suffixes();  ///< "FLOPS" ... "PFLOPS"
std::vector<std::string_view> per_time_suffixes();   ///< the time units that end a failure rate ("day")
std::vector<std::string_view> rate_subject_words(RateScope scope);  ///< "machine", "cluster", "job" (or "domain", ...)

}  // namespace ckptsim
