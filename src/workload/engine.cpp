#include "ckptsim/workload/engine.hpp"

#include "ckptsim/workload/deepspeed_zero3.hpp"
#include "ckptsim/workload/fsdp.hpp"

namespace ckptsim {

const Registry<EngineFactory>& engine_registry() {
  static const Registry<EngineFactory> registry = [] {
    const auto name = [](EngineKind kind) { return std::string(name_of(kind)); };
    Registry<EngineFactory> r("training engine");
    r.add(name(EngineKind::deepspeed_zero3),
          "DeepSpeed ZeRO-3 v0.7.3: per-submodule gathers, trace-driven prefetch, 2 outstanding fetch and reduce events",
          deepspeed_zero3_program);
    r.add(name(EngineKind::fsdp),
          "PyTorch FSDP (full-shard | hybrid-shard): one flat parameter per block, backward prefetch, all-gather limiter",
          fsdp_program);
    return r;
  }();
  return registry;
}

EngineProgram make_engine_program(EngineKind kind, const EngineInput& input) {
  return engine_registry().at(name_of(kind)).factory(input);
}

}  // namespace ckptsim
