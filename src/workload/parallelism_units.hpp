#pragma once
// The parallelism units of the table (parallelism_model.cpp), one file each.
#include "ckptsim/workload/parallelism_model.hpp"

namespace ckptsim {

const ParallelismModel& zero3_parallelism();     // parallelism_model.cpp
const ParallelismModel& megatron_parallelism();  // megatron_model.cpp

}  // namespace ckptsim
