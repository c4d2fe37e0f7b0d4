// Chooses the replay backend; the nccl one exists only in builds with CUDA and NCCL
// (meson option cuda, which defines CKPTSIM_HAVE_NCCL).
#include "backend.hpp"

#include "ckptsim/core/error.hpp"

namespace ckptsim::replay {

std::unique_ptr<Backend> make_mpi_backend(const BackendOptions& options, MPI_Comm world);
#ifdef CKPTSIM_HAVE_NCCL
std::unique_ptr<Backend> make_nccl_backend(const BackendOptions& options, MPI_Comm world);
#endif

bool nccl_backend_built() {
#ifdef CKPTSIM_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options, MPI_Comm world) {
  if (name == "mpi") return make_mpi_backend(options, world);
#ifdef CKPTSIM_HAVE_NCCL
  if (name == "nccl") return make_nccl_backend(options, world);
#endif
  if (name == "nccl") {
    throw ModelError("--backend", "this ckptsim-replay was built without the nccl backend (CUDA and NCCL were not found when "
                                  "it was configured; see meson option cuda); use --backend mpi");
  }
  throw ModelError("--backend", "expects mpi or nccl, found \"" + name + "\"");
}

}  // namespace ckptsim::replay
