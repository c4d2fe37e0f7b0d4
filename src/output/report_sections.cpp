// The report sections only some strategies have (report_sections.hpp): one writer each.
#include "ckptsim/output/report_sections.hpp"

#include <array>
#include <cstddef>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/analysis/multi_level_model.hpp"
#include "ckptsim/output/erasure_summary.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {

void ReportSectionWriter::print_after_costs(std::ostream&, const Scenario&, const StrategyCosts&) const {}
void ReportSectionWriter::print_closed_form(std::ostream&, const Scenario&, const StrategyCosts&,
                                            const AnalyticPrediction&, std::int64_t) const {}
void ReportSectionWriter::print_memory(std::ostream&, const StrategyCosts&, const AnalyticPrediction&) const {}
void ReportSectionWriter::print_run_costs(std::ostream&, const StrategyCosts&) const {}
void ReportSectionWriter::add_analyze_json(const Scenario&, const StrategyCosts&, nlohmann::json&) const {}

namespace {

/// Eq. 1 and Young's and Daly's intervals for the strategy's one checkpoint period.
class YoungDalySection final : public ReportSectionWriter {
 public:
  void print_closed_form(std::ostream& out, const Scenario&, const StrategyCosts&, const AnalyticPrediction& p,
                         std::int64_t best_every) const override {
    out << fmt::format("Eq. 1      t_ckpt + 1/(2f) + t_rtvl = {:.1f} s per failure (GEMINI SOSP '23 §2)\n",
                       p.eq1_wasted_time_s);
    if (p.mtbf_s > 0 && p.checkpoint_cost_s <= 0)
      out << fmt::format("intervals  no stall per checkpoint: Young and Daly give 0 s, i.e. every iteration (Eq. 2); "
                         "closed-form best: every {} iteration(s)\n",
                         best_every);
    else if (p.mtbf_s > 0)
      out << fmt::format("intervals  Young {:.1f} s ({:.1f} iterations), Daly {:.1f} s ({:.1f} iterations) for a {:.2f} s "
                         "checkpoint; closed-form best: every {} iteration(s)\n",
                         p.young_interval_s, p.young_every_iterations, p.daly_interval_s, p.daly_every_iterations,
                         p.checkpoint_cost_s, best_every);
  }
};

constexpr const char* kLevelNames[] = {"local", "partner", "storage"};

/// The multi-level model's levels (analysis/multi_level_model.hpp), lowest first.
class CheckpointLevelsSection final : public ReportSectionWriter {
 public:
  void print_closed_form(std::ostream& out, const Scenario& s, const StrategyCosts& c, const AnalyticPrediction&,
                         std::int64_t) const override {
    const MultiLevelPrediction m = predict_multi_level(s, c);
    out << "levels     first-order model (analysis/multi_level_model.hpp): P_i* = sqrt(2 (S_i - S_i-1) / lambda_i)\n";
    out << fmt::format("  {:<9} {:>14} {:>8} {:>10} {:>11} {:>12} {:>11} {:>12} {:>8}\n", "level", "failures/day",
                       "every", "stall (s)", "period (s)", "rollback (s)", "retrieve (s)", "best period", "best k");
    for (std::size_t i = 0; i < 3; ++i)
      out << fmt::format("  {:<9} {:>14.3f} {:>8} {:>10.2f} {:>11.1f} {:>12.1f} {:>11.2f} {:>12.1f} {:>8}\n",
                         kLevelNames[i], m.rate[i] * 86400.0, m.every[i], m.stall_s[i], m.period_s[i], m.rollback_s[i],
                         m.retrieval_s[i], m.best_period_s[i], m.best_every[i]);
    out << fmt::format("  checkpoint overhead {:.4f}; first-order ETTR {:.4f} now, {:.4f} at the best periods\n",
                       m.checkpoint_overhead, m.ettr, m.best_ettr);
  }
  void print_run_costs(std::ostream& out, const StrategyCosts& c) const override {
    out << fmt::format("levels     stall: local {}, partner {}, storage {}\n", format_duration(c.stall),
                       format_duration(c.partner_stall), format_duration(c.persistent_stall));
  }
  void add_analyze_json(const Scenario& s, const StrategyCosts& c, nlohmann::json& doc) const override {
    const MultiLevelPrediction m = predict_multi_level(s, c);
    nlohmann::json levels = nlohmann::json::array();
    for (std::size_t i = 0; i < 3; ++i)
      levels.push_back({{"level", kLevelNames[i]},
                        {"failure_rate_per_s", m.rate[i]},
                        {"every_iterations", m.every[i]},
                        {"stall_s", m.stall_s[i]},
                        {"period_s", m.period_s[i]},
                        {"rollback_s", m.rollback_s[i]},
                        {"retrieval_s", m.retrieval_s[i]},
                        {"best_period_s", m.best_period_s[i]},
                        {"best_every_iterations", m.best_every[i]}});
    doc["closed_form"]["multi_level"] = {{"levels", levels},
                                         {"checkpoint_overhead", m.checkpoint_overhead},
                                         {"ettr", m.ettr},
                                         {"best_ettr", m.best_ettr}};
  }
};

/// Replicas in CPU memory: the chance a hardware failure leaves a checkpoint without holders.
class HolderLossSection final : public ReportSectionWriter {
 public:
  void print_memory(std::ostream& out, const StrategyCosts&, const AnalyticPrediction& p) const override {
    out << fmt::format("memory     P(a hardware failure leaves some checkpoint without holders) = {:.3g}\n",
                       p.memory_loss_per_hardware_failure);
  }
};

/// An erasure code in CPU memory (output/erasure_summary.hpp).
class ErasureCodeSection final : public ReportSectionWriter {
 public:
  void print_after_costs(std::ostream& out, const Scenario& s, const StrategyCosts& c) const override {
    print_erasure_summary(out, s, c);
  }
  void print_memory(std::ostream& out, const StrategyCosts& c, const AnalyticPrediction& p) const override {
    out << fmt::format("memory     P(a hardware failure leaves its coding group with more than p = {} members replaced) = {:.3g}\n",
                       c.parity, p.memory_loss_per_hardware_failure);
  }
  void add_analyze_json(const Scenario& s, const StrategyCosts& c, nlohmann::json& doc) const override {
    doc["erasure_code"] = erasure_summary_json(s, c);
  }
};

}  // namespace

const ReportSectionWriter& report_section(ReportSection section) {
  static const YoungDalySection young_daly;
  static const CheckpointLevelsSection checkpoint_levels;
  static const HolderLossSection holder_loss;
  static const ErasureCodeSection erasure_code;
  // Indexed by ReportSection, in its declaration order.
  static const std::array<const ReportSectionWriter*, 4> table{&young_daly, &checkpoint_levels, &holder_loss,
                                                               &erasure_code};
  const auto index = static_cast<std::size_t>(section);
  if (index >= table.size()) throw std::logic_error("report_section: a ReportSection outside the table");
  return *table[index];
}

}  // namespace ckptsim
