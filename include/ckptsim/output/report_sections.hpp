#pragma once
// The report sections only some strategies have (run/strategy.hpp, ReportSection), one writer
// each: a strategy names its sections (Strategy::report_sections()), and the analyze and run
// reports ask every named section for its part, never the strategy's kind or tier. A section
// lives here, not with its strategy in the run layer, because its figures come from the closed
// forms (analysis/) above that layer.
//
//   young_daly         analyze: Eq. 1 for one failure, t_ckpt + 1/(2f) + t_rtvl (GEMINI SOSP '23
//                      §2), and Young's and Daly's intervals for the one checkpoint period (Eq. 2)
//   checkpoint_levels  analyze: the multi-level table (analysis/multi_level_model.hpp) in place of
//                      Eq. 1, and closed_form.multi_level in the JSON; run: the stalls per level
//   holder_loss        analyze: P(a hardware failure leaves some checkpoint without holders)
//   erasure_code       analyze: the code's memory, traffic and exact recovery probabilities
//                      (output/erasure_summary.hpp) after the costs, "erasure_code" in the JSON,
//                      and P(a group loses more than p members) in place of holder_loss
#include <cstdint>
#include <ostream>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/run/strategy.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// What a section contributes to each part of the reports; every part defaults to nothing.
class ReportSectionWriter {
 public:
  ReportSectionWriter() = default;
  ReportSectionWriter(const ReportSectionWriter&) = delete;
  ReportSectionWriter& operator=(const ReportSectionWriter&) = delete;
  virtual ~ReportSectionWriter() = default;

  /// analyze's table: lines right after the costs line.
  virtual void print_after_costs(std::ostream& out, const Scenario& s, const StrategyCosts& c) const;
  /// analyze's table: lines after the failures line, when the closed form is available.
  virtual void print_closed_form(std::ostream& out, const Scenario& s, const StrategyCosts& c,
                                 const AnalyticPrediction& p, std::int64_t best_every) const;
  /// analyze's table: the CPU-memory loss line, when the closed form is available.
  virtual void print_memory(std::ostream& out, const StrategyCosts& c, const AnalyticPrediction& p) const;
  /// The run report: lines right after its costs line (a strategy that takes checkpoints).
  virtual void print_run_costs(std::ostream& out, const StrategyCosts& c) const;
  /// Members of the analyze JSON document (without its manifest).
  virtual void add_analyze_json(const Scenario& s, const StrategyCosts& c, nlohmann::json& doc) const;
};

/// The writer of `section` (one immutable object per section).
const ReportSectionWriter& report_section(ReportSection section);

}  // namespace ckptsim
