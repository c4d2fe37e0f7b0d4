#pragma once
// The measured timeline (`ckptsim-timeline/1`, docs/timeline-format.md): what ckptsim-replay
// recorded on every rank, one writer and one reader, so the replay's output and what
// `ckptsim validate` / `ckptsim calibrate` read are the same definition.
//
// Times are seconds from the start of the iteration on that rank (all ranks start an iteration
// together, after a barrier); sizes bytes.
//
// The reader refuses, naming the file and the JSON pointer, anything a comparison could not
// trust: another format; a manifest without the plan's hash; ranks missing, repeated or out of
// range (ranks must be 0..n-1, n = plan.ranks); ranks with different iteration numbers; no
// measured iteration; times that are not finite numbers in [0, 1e6] s; a span that ends before
// it starts; an iteration time <= 0; an operation id listed twice in one iteration; sizes
// (bytes, FLOPs) that are negative or not finite.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ckptsim {

struct TimeSpan {
  double start_s = 0;
  double end_s = 0;
  [[nodiscard]] double length() const { return end_s - start_s; }
};

struct MeasuredOp {
  int id = 0;
  std::string kind;      ///< compute, all-gather, reduce-scatter, all-reduce
  std::string category;  ///< the plan operation's category
  TimeSpan span;         ///< start: dependencies ended and its stream free; end: completed
  double flops = 0;      ///< compute
  double bytes = 0;      ///< collectives: bytes each rank's stream moved
};

struct MeasuredSend {
  int index = 0;
  int copy = 0;
  int peer = 0;
  double bytes = 0;
  TimeSpan span;  ///< start: the chunk may go; end: its last byte carried by the (paced) link
};

struct MeasuredCopy {
  int from = 0;   ///< the sending rank
  int index = 0;  ///< the chunk's index in the sender's plan
  double bytes = 0;
  TimeSpan received;  ///< receive posted .. last byte arrived
  TimeSpan copy;      ///< the copy from the receive sub-buffer into CPU memory
};

struct MeasuredIteration {
  int iteration = 0;             ///< counting warm-up iterations from 0
  double iteration_time_s = 0;   ///< end of the optimizer step
  double checkpoint_time_s = 0;  ///< last copy into CPU memory on this rank
  std::vector<MeasuredOp> operations;
  std::vector<MeasuredSend> sends;
  std::vector<MeasuredCopy> copies;
  TimeSpan local_copy;
};

struct MeasuredRank {
  int rank = 0;
  std::vector<MeasuredIteration> iterations;
};

/// How well the emulated link kept its rate (ckptsim-replay's pacing, docs/timeline-format.md).
struct PacingReport {
  double requested_bytes_per_s = 0;  ///< 0: unpaced
  double paced_bytes = 0;            ///< bytes sent through the pacer on this rank
  double ideal_s = 0;                ///< their time at the requested rate
  double late_s = 0;                 ///< summed lateness of paced operations beyond their deadlines
  [[nodiscard]] double achieved_fraction() const { return ideal_s > 0 ? ideal_s / (ideal_s + late_s) : 1.0; }
};

struct MeasuredTimeline {
  std::string file;  ///< where it was read from (empty when built in memory)
  std::string backend;
  std::string command_line;
  nlohmann::json manifest;  ///< ckptsim version, git revision, command line, plan_hash
  std::string plan_hash;
  std::string plan_file, plan_scenario, plan_scheduler;
  int plan_ranks = 0;
  double paced_bandwidth_bytes_per_s = 0;
  std::vector<PacingReport> pacing;  ///< per rank, when recorded
  std::vector<MeasuredRank> ranks;   ///< ordered by rank, 0..n-1
};

nlohmann::json measured_rank_json(const MeasuredRank& rank);
nlohmann::json pacing_json(const PacingReport& pacing);

/// The whole document; `ranks` as written by measured_rank_json, in rank order.
nlohmann::json measured_timeline_json(const MeasuredTimeline& header, const nlohmann::json& ranks);

/// Reads and checks a timeline document (see above); throws InputError.
MeasuredTimeline parse_measured_timeline(const nlohmann::json& doc, const std::string& file);

}  // namespace ckptsim
