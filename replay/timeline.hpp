// What a replay measured on one rank, and the timeline file format both the replay tool and
// the simulator's predictions use (docs/timeline-format.md). Times are seconds from the start
// of the iteration on that rank (all ranks start an iteration together, after a barrier).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "replay_plan.hpp"

namespace ckptsim::replay {

struct Span {
  double start_s = -1;
  double end_s = -1;
};

struct SendRecord {
  int index = 0;
  int copy = 0;
  int peer = 0;
  double bytes = 0;
  Span span;
};

struct CopyRecord {
  int from = 0;   ///< the sending rank
  int index = 0;  ///< the chunk's index in the sender's plan
  double bytes = 0;
  Span received;  ///< first segment posted .. last segment arrived
  Span copy;      ///< the copy from the receive sub-buffer into CPU memory
};

struct IterationRecord {
  int iteration = 0;
  double iteration_time_s = 0;   ///< end of the optimizer step
  double checkpoint_time_s = 0;  ///< last copy into CPU memory (received chunks, local replica)
  std::vector<Span> ops;         ///< by operation id
  std::vector<SendRecord> sends;
  std::vector<CopyRecord> copies;
  Span local_copy;
};

struct RankRecord {
  int rank = 0;
  std::vector<IterationRecord> iterations;
};

nlohmann::json rank_record_json(const ReplayPlan& plan, const RankRecord& r);

/// The whole file, from every rank's record (as produced by rank_record_json).
nlohmann::json timeline_json(const ReplayPlan& plan, const std::string& backend, double bandwidth,
                             const nlohmann::json& ranks, const std::string& command_line);

/// Chrome trace-event JSON (one process per rank; the tracks of `ckptsim iteration --trace`).
nlohmann::json chrome_trace_json(const ReplayPlan& plan, const nlohmann::json& ranks);

}  // namespace ckptsim::replay
