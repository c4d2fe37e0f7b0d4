// `ckptsim optimize --json` (output/optimize_report.hpp).
#include "ckptsim/output/optimize_report.hpp"

#include "ckptsim/output/manifest.hpp"
#include "ckptsim/output/numbers.hpp"

namespace ckptsim {
namespace {

nlohmann::json optimize_candidate_json(const Candidate& c) {
  nlohmann::json j;
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& [pointer, value] : c.settings) settings[pointer] = value;
  j["settings"] = settings;
  j["status"] = to_string(c.status);
  if (c.status != CandidateStatus::ok) {
    j["reason"] = c.reason;
    return j;
  }
  j["ettr"] = c.ettr;
  j["standby_machines"] = c.standby;
  j["goodput_per_machine_hour"] = c.goodput_per_machine_hour;
  if (c.closed.available) j["closed_form"] = {{"ettr", c.closed.ettr}, {"ettr_asymptotic", c.closed.ettr_asymptotic}};
  if (c.simulated) j["simulated"] = {{"ettr", c.simulated->at("ettr").mean}, {"ci95", c.simulated->at("ettr").ci95}};
  j["wall_time_shares"] = c.shares;
  j["every_iterations"] = c.costs.every_iterations;
  j["checkpoint_stall_s"] = c.costs.stall.seconds();
  return j;
}

}  // namespace

nlohmann::json optimize_document(const OptimizeStudy& study, const std::string& command_line) {
  const OptimizeResult& result = study.result;
  nlohmann::json out;
  out["manifest"] = make_manifest(study.base, command_line);
  out["ranking"] = result.ranking;
  out["closed_form_omits"] = result.closed_form_omits;
  out["gpu_memory_checked"] = result.gpu_checked && !study.base.training.iteration_time;
  if (!study.gpu_note.empty()) out["note"] = study.gpu_note;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : result.candidates) list.push_back(optimize_candidate_json(c));
  out["candidates"] = list;
  out["best"] = result.best ? optimize_candidate_json(result.candidates[*result.best]) : nlohmann::json(nullptr);
  out["runner_up"] = result.runner_up ? optimize_candidate_json(result.candidates[*result.runner_up]) : nlohmann::json(nullptr);
  out["why_runner_up_lost"] = result.why_runner_up_lost;
  return tidy_numbers(std::move(out));
}

}  // namespace ckptsim
