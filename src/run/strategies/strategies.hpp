#pragma once
// The strategy objects, one per file of this folder, gathered by src/run/strategy_table.cpp.
// Private to the run layer: the rest of ckptsim reaches them through strategy_of().
#include "ckptsim/run/strategy.hpp"

namespace ckptsim::strategies {

const Strategy& gemini();
const Strategy& remote_periodic();
const Strategy& remote_highfreq();
const Strategy& in_memory_blocking();
const Strategy& erasure_coded();
const Strategy& multi_level();
const Strategy& torchft();
const Strategy& just_in_time();
const Strategy& async_two_phase();
const Strategy& diloco();
const Strategy& none();
const Strategy& moe_partial();
const Strategy& shadow();

/// " (m replicas, P placement, every k iteration(s))": the configuration of a strategy keeping
/// m whole replicas in CPU memory.
std::string replicas_configuration(const StrategyCosts& c);

/// " (every k iteration(s)[ at first, adaptive])": the configuration of a strategy writing to
/// storage.
std::string storage_configuration(const StrategyCosts& c);

}  // namespace ckptsim::strategies
