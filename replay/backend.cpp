// Chooses the replay backend. The mpi one is part of the executable; the nccl one exists only
// in builds with CUDA and NCCL (meson option cuda, which defines CKPTSIM_HAVE_NCCL) and is a
// shared module of its own, libckptsim-replay-nccl.so (nccl_backend.cpp), loaded with dlopen
// when a run asks for it. Linking it into the executable made every rank load the CUDA
// libraries at start-up, whichever backend it ran: cuBLAS's libcublasLt alone took 0.33 s of
// loading per process on a 2-core AMD EPYC host (strace, 5 December 2026), and an mpi-backend
// rank on a machine without the CUDA libraries could not start at all.
//
// Where the module is looked for, in order: beside the executable (the build tree, where Meson
// puts both in build/replay/), then in the installed layout relative to the executable
// (BINDIR/../LIBDIR/ckptsim/, so a `meson install --destdir` copy finds its own module).
#include "backend.hpp"

#include "ckptsim/core/error.hpp"

#ifdef CKPTSIM_HAVE_NCCL
#include <dlfcn.h>

#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#endif

namespace ckptsim::replay {

std::unique_ptr<Backend> make_mpi_backend(const BackendOptions& options, MPI_Comm world);

#ifdef CKPTSIM_HAVE_NCCL
namespace {

using MakeNcclBackend = Backend* (*)(const BackendOptions*, MPI_Comm);
constexpr const char* kNcclModule = "libckptsim-replay-nccl.so";
constexpr const char* kNcclEntry = "ckptsim_replay_make_nccl_backend";

std::vector<std::filesystem::path> nccl_module_candidates() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path dir = exe.parent_path();
  std::vector<fs::path> out{dir / kNcclModule};
  // Up from BINDIR to the prefix, one ".." per component of the prefix-relative bindir.
  fs::path prefix = dir;
  for (const auto& part : fs::path(CKPTSIM_INSTALL_BINDIR)) {
    if (!part.empty() && part != ".") prefix = prefix.parent_path();
  }
  const fs::path libdir(CKPTSIM_INSTALL_LIBDIR);
  out.push_back((libdir.is_absolute() ? libdir : prefix / libdir) / "ckptsim" / kNcclModule);
  return out;
}

MakeNcclBackend load_nccl_module() {
  static MakeNcclBackend loaded = nullptr;  // the module stays loaded for the process's life
  if (loaded) return loaded;
  std::string tried;
  for (const auto& path : nccl_module_candidates()) {
    void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (module == nullptr) {
      const char* why = dlerror();  // names the path itself
      tried += fmt::format("\n  {}", why ? why : path.string() + ": not loadable");
      continue;
    }
    void* entry = dlsym(module, kNcclEntry);
    if (entry == nullptr) {
      tried += fmt::format("\n  {}: no symbol {}", path.string(), kNcclEntry);
      continue;
    }
    loaded = reinterpret_cast<MakeNcclBackend>(entry);
    return loaded;
  }
  throw ModelError("--backend", fmt::format("the nccl backend's module {} could not be loaded (it needs the CUDA runtime, "
                                            "NCCL and cuBLAS libraries of the build); tried:{}",
                                            kNcclModule, tried));
}

}  // namespace
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
  if (name == "nccl") return std::unique_ptr<Backend>(load_nccl_module()(&options, world));
#endif
  if (name == "nccl") {
    throw ModelError("--backend", "this ckptsim-replay was built without the nccl backend (CUDA and NCCL were not found when "
                                  "it was configured; see meson option cuda); use --backend mpi");
  }
  throw ModelError("--backend", "expects mpi or nccl, found \"" + name + "\"");
}

}  // namespace ckptsim::replay
