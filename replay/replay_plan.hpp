// The parts of a checkpoint plan (docs/plan-format.md, written by `ckptsim schedule`) that the
// replay tool executes: the iteration's operations as a dependency graph, the idle spans that
// anchor the checkpoint chunks, and each rank's chunk list. Times are seconds from the
// iteration's start, sizes bytes.
#pragma once
#include <string>
#include <vector>

namespace ckptsim::replay {

enum class OpKind { compute, all_gather, reduce_scatter, all_reduce, marker };

struct PlanOp {
  int id = 0;
  OpKind kind = OpKind::marker;
  std::string category;  ///< forward, backward, optimizer, all-gather, reduce-scatter, all-reduce, copy, host, marker
  int stage = 0;
  std::vector<int> deps;
  double flops = 0;       ///< compute: FLOPs per GPU
  double duration_s = 0;  ///< compute: planned duration
  double bytes = 0;       ///< collective: bytes each rank's stream moves in this phase
  double planned_start_s = -1;
  double planned_end_s = -1;
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

struct ReplayPlan {
  std::string file;
  std::string scenario;
  std::string scheduler;
  int ranks = 0;
  int gpus_per_machine = 1;
  double shard_bytes = 0;
  int copies = 0;
  int sub_buffers = 1;
  double chunk_limit_bytes = 0;
  double bandwidth_bytes_per_s = 0;
  bool blocks_training = false;
  double iteration_time_s = 0;
  double predicted_iteration_with_checkpoint_s = 0;
  double predicted_checkpoint_time_s = 0;
  std::vector<PlanSpan> spans;
  std::vector<PlanOp> ops;  ///< ids are positions; every dep precedes its op
  std::vector<PlanRank> rank_plans;
  int optimizer_op = -1;    ///< the last optimizer op: waits for the last chunk sent and the local copy
};

/// Reads and checks a plan; throws InputError (file, JSON pointer, expected, found) or
/// LimitError (shard or buffer bytes beyond `memory_limit_bytes`).
ReplayPlan load_replay_plan(const std::string& path, double memory_limit_bytes);

const char* to_string(OpKind kind);

}  // namespace ckptsim::replay
