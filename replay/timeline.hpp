// What a replay measured on one rank (the rank loop's records), turned into the measured
// timeline of the calibration layer (calibration/measured_timeline.hpp, docs/timeline-format.md),
// whose writer and reader are the ones `ckptsim validate` and `ckptsim calibrate` use. Times are
// seconds from the start of the iteration on that rank (all ranks start an iteration together,
// after a barrier).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/calibration/measured_timeline.hpp"
#include "ckptsim/calibration/plan_file.hpp"

namespace ckptsim::replay {

/// A span being measured; -1 until its start or end is known.
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
  PacingReport pacing;  ///< over the measured iterations
};

/// The measured timeline's entry for this rank (every span of a finished iteration is known).
MeasuredRank measured_rank(const PlanFile& plan, const RankRecord& record);

/// The timeline's header: the plan's identity and a manifest (ckptsim version, git revision,
/// command line, the plan's hash).
MeasuredTimeline timeline_header(const PlanFile& plan, const std::string& backend, double bandwidth, const std::string& command_line);

}  // namespace ckptsim::replay
