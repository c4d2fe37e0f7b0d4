// Built without MPI: a single process, executed with threads (executor.hpp).
#include <stdexcept>

#include "ckptsim/sweep/executor.hpp"

namespace ckptsim::sweep {

bool mpi_active() { return false; }
int mpi_rank() { return 0; }
int mpi_size() { return 1; }
bool mpi_broadcast_ok(bool ok) { return ok; }

void execute_mpi(const SweepSpec&, const std::vector<std::int64_t>&, CostCache&, const RecordSink&) {
  throw std::logic_error("execute_mpi called in a build without MPI");
}

}  // namespace ckptsim::sweep
