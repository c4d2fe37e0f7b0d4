#pragma once
// A checkpoint plan read back (docs/plan-format.md, written by `ckptsim schedule`): what
// ckptsim-replay executes and what `ckptsim validate` compares a measurement with. One reader
// for both, so the replay and the validation can never disagree on what a plan says.
//
// Kept: the iteration's operations as a dependency graph (with their planned times, when the
// plan was simulated), the idle spans that anchor the checkpoint chunks, each rank's chunk list,
// the cost parameters (alpha, bandwidth per GPU) and the summary's predictions. Times are
// seconds from the iteration's start, sizes bytes.
//
// Identity: `hash` is FNV-1a 64 (scenario/scenario_json.hpp) of the parsed document written
// compactly with sorted keys (nlohmann::json::dump()), in hex: independent of whitespace and key
// order, changed by any value. ckptsim-replay records it in the measured timeline's manifest and
// `ckptsim validate` refuses a timeline recorded from another plan.
//
// Phases: every operation gets the training phase it belongs to, for per-phase statistics:
// compute its category (forward, recompute, backward, boundary, optimizer); an all-gather the
// category of the first compute operation that depends on it (the one it feeds); a
// reduce-scatter the category of its last compute dependency (the one that produced it);
// "other" when none.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ckptsim {

enum class OpKind { compute, all_gather, reduce_scatter, all_reduce, marker };

/// All-gather, reduce-scatter and all-reduce: the operations that move bytes on a stream.
inline bool is_collective(OpKind kind) {
  return kind == OpKind::all_gather || kind == OpKind::reduce_scatter || kind == OpKind::all_reduce;
}

struct PlanOp {
  int id = 0;
  OpKind kind = OpKind::marker;
  std::string category;  ///< forward, recompute, backward, boundary, optimizer, all-gather, reduce-scatter, all-reduce, copy, host, marker
  std::string phase;     ///< see above
  std::string name;      ///< slice name of the traces (output/trace_events.hpp); plans without one: "<category> S<stage>"
  int stage = 0;
  std::vector<int> deps;
  double flops = 0;       ///< compute: FLOPs per GPU
  double duration_s = 0;  ///< compute: planned duration
  double bytes = 0;       ///< collective: bytes each rank's stream moves in this phase
  bool planned = false;   ///< planned_start_s / planned_end_s given (a simulated plan)
  double planned_start_s = 0;
  double planned_end_s = 0;
};

struct PlanSpan {
  double start_s = 0;
  double length_s = 0;
  int after_op = -1;
};

struct PlanChunk {
  int index = 0;
  int copy = 0;
  int peer = 0;
  int span = 0;
  double offset_s = 0;
  double planned_start_s = 0;
  double bytes = 0;
  int sub_buffer = 0;
};

struct PlanRank {
  int rank = 0;
  std::vector<int> peers;
  double local_copy_start_s = 0;
  std::vector<PlanChunk> chunks;
};

struct PlanFile {
  std::string file;
  std::string hash;  ///< see above
  std::string scenario;
  std::string scheduler;
  int ranks = 0;
  int gpus_per_machine = 1;
  double shard_bytes = 0;
  int copies = 0;
  int sub_buffers = 1;
  double chunk_limit_bytes = 0;
  double alpha_s = 0;
  double bandwidth_bytes_per_s = 0;
  bool blocks_training = false;
  bool imported_profile = false;  ///< iteration.profile "imported": no planned operation times
  double iteration_time_s = 0;
  double predicted_iteration_with_checkpoint_s = 0;
  double predicted_checkpoint_time_s = 0;
  std::vector<PlanSpan> spans;
  std::vector<PlanOp> ops;  ///< ids are positions; every dep precedes its op
  std::vector<PlanRank> rank_plans;
  int optimizer_op = -1;    ///< the last optimizer op: waits for the last chunk sent and the local copy
};

/// Reads and checks a plan file (core/input_file.hpp guards); throws InputError (file, JSON
/// pointer, expected, found) or LimitError (shard or buffer bytes a replay would allocate beyond
/// `memory_limit_bytes` per rank).
PlanFile read_plan_file(const std::string& path, double memory_limit_bytes);

/// The same from a parsed document (`path` names it in messages).
PlanFile parse_plan_file(const nlohmann::json& doc, const std::string& path, double memory_limit_bytes);

/// The hash described above.
std::string plan_hash(const nlohmann::json& doc);

const char* to_string(OpKind kind);

}  // namespace ckptsim
