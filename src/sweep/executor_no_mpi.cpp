// Built without MPI: a single process, executed with threads (executor.hpp).
#include <exception>
#include <stdexcept>

#include "ckptsim/sweep/executor.hpp"

namespace ckptsim::sweep {

bool mpi_built() { return false; }

MpiSession::MpiSession() { throw std::logic_error("MpiSession made in a build without MPI"); }
MpiSession::~MpiSession() = default;
bool MpiSession::broadcast_ok(bool ok) const { return ok; }
void MpiSession::abort(int) const { std::terminate(); }  // unreachable: no session in this build

void execute_mpi(const MpiSession&, const SweepSpec&, const std::vector<std::int64_t>&, CostCache&, const RecordSink&) {
  throw std::logic_error("execute_mpi called in a build without MPI");
}

}  // namespace ckptsim::sweep
