#pragma once
// Evaluating one sweep point: build its scenario, validate it, run the spec's command, keep the
// JSON result. A point is checked exactly as its command checks it (run/run_checks.hpp for run
// and analyze, the iteration model's work for iteration, analysis/placement_work.hpp for
// placement), never forced. An invalid point (InputError, ModelError or LimitError from the
// loader, the checks or the model, or running out of memory anyway) is a result too: status
// "invalid" with the error message, and the sweep goes on; any other exception (a bug) gives
// status "error" with the message, so a sweep and its --resume always finish.
//
// Point results (the documents metric pointers read):
//   run:       {"scenario_hash", "scenario", "costs", "summary"} as in `ckptsim run --output`
//              (without the manifest, whose command line differs between sweeps)
//   iteration: {"scenario_hash", "scenario", "costs": {iteration_time_s,
//              iteration_time_with_checkpoint_s, checkpoint_time_s, blocking_checkpoint_time_s,
//              gpu_buffer_bytes, oom, min_every_iterations}} from the iteration model
// A point always runs its Monte Carlo replicas on one thread: parallelism is across points.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/sweep/spec.hpp"

namespace ckptsim::sweep {

/// What became of a point: computed, refused as invalid input, or a bug (see above).
enum class PointStatus { ok, invalid, error };

/// "ok", "invalid", "error": the status column of points.csv and the journal's "status".
std::string_view status_name(PointStatus status);
/// The status named `name`; nullopt for any other text.
std::optional<PointStatus> parse_status(std::string_view name);

struct PointRecord {
  std::int64_t index = 0;
  std::vector<nlohmann::json> values;  ///< one per axis, as written into the scenario
  PointStatus status = PointStatus::ok;
  std::string error;                   ///< why the point is invalid or failed ("" when ok)
  nlohmann::json result;               ///< the command's JSON result (null when invalid)
  std::string text;                    ///< record_to_json(*this).dump() once computed ("" before)
};

nlohmann::json record_to_json(const PointRecord& r);
/// record_to_json(r).dump(), computed once and kept in r.text (journal and points.jsonl share it).
const std::string& record_text(PointRecord& r);
/// Throws std::invalid_argument when `j` is not a record (callers treat it as a corrupt line).
PointRecord record_from_json(const nlohmann::json& j);

/// The iteration model's results, shared by points whose scenarios agree on every field the
/// model reads (iteration_cost_key). Thread-safe; two threads missing the same key at once may
/// both compute it (the results are equal: the model is deterministic).
class CostCache {
 public:
  IterationCosts get(const Scenario& scenario);
  [[nodiscard]] std::int64_t hits() const;
  [[nodiscard]] std::int64_t misses() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, IterationCosts> costs_;
  std::int64_t hits_ = 0;
  std::int64_t misses_ = 0;
};

/// The cache key: iteration_fields_key() (scenario_json.hpp), every field whose parameter row
/// says the iteration model reads it, derived from the table.
std::string iteration_cost_key(const Scenario& scenario);

PointRecord evaluate_point(const SweepSpec& spec, std::int64_t index, CostCache& cache);

/// The "costs" of an iteration point: the iteration model's results (docs/sweep-format.md).
nlohmann::json iteration_costs_json(const IterationCosts& costs);

}  // namespace ckptsim::sweep
