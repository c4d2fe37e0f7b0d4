#include "ckptsim/workload/engine.hpp"

#include "ckptsim/workload/deepspeed_zero3.hpp"
#include "ckptsim/workload/fsdp.hpp"

namespace ckptsim {

const Registry<Engine>& engine_registry() {
  static const Registry<Engine> registry = [] {
    const auto name = [](EngineKind kind) { return std::string(name_of(kind)); };
    Registry<Engine> r("training engine");
    r.add(name(EngineKind::deepspeed_zero3),
          "DeepSpeed ZeRO-3 v0.7.3: per-submodule gathers, trace-driven prefetch, 2 outstanding fetch and reduce events",
          Engine{deepspeed_zero3_program, deepspeed_zero3_memory});
    r.add(name(EngineKind::fsdp),
          "PyTorch FSDP (full-shard | hybrid-shard): one flat parameter per block, backward prefetch, all-gather limiter",
          Engine{fsdp_program, fsdp_memory});
    return r;
  }();
  return registry;
}

EngineProgram make_engine_program(EngineKind kind, const EngineInput& input) {
  return engine_registry().at(name_of(kind)).factory.program(input);
}

EngineMemory engine_memory(EngineKind kind, const EngineInput& input) {
  return engine_registry().at(name_of(kind)).factory.memory(input);
}

}  // namespace ckptsim
