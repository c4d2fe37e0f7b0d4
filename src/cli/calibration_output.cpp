#include "calibration_output.hpp"

#include <filesystem>
#include <ostream>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/output/calibration_report.hpp"
#include "ckptsim/output/output_file.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/scenario_json.hpp"

namespace ckptsim::cli {

CalibrationTarget load_calibration_target(const std::string& base_path, CalibrationBase& base) {
  CalibrationTarget t;
  if (base_path.empty()) return t;
  const Scenario s = load_scenario_file(base_path);
  const std::optional<int> machines = base.machines;
  const std::optional<SizeRange> sizes = base.sizes;
  base = calibration_base(s);
  base.machines = machines;
  base.sizes = sizes;
  // A default range gives way to the sizes of the base's own collectives.
  if (sizes && sizes->is_default && !base.job_collectives.empty()) base.sizes = default_size_range(base.job_collectives);
  t.base_path = base_path;
  t.base_doc = read_json_file(base_path, "a scenario file");
  return t;
}

void write_calibration(const CommandContext& ctx, const Calibration& cal, const CalibrationTarget& target,
                       const std::string& output, const std::string& command, bool json) {
  for (const std::string& w : cal.warnings) ctx.err << "warning: " << w << "\n";
  if (cal.fields.empty()) {
    ctx.out << (json ? calibration_json(cal).dump(2) + '\n' : calibration_table(cal));
    throw ModelError(command, "no measurement sets a scenario field (see \"not written\" above), so nothing was written");
  }
  nlohmann::json doc = cal.fields;
  if (!target.base_path.empty()) {
    doc = target.base_doc;
    // A base without a name takes its file's; the calibrated file without one takes its own.
    if (doc.contains("name") && doc["name"].is_string()) doc["name"] = doc["name"].get<std::string>() + "-calibrated";
    merge_scenario_fields(doc, cal.fields);
    // Relative paths (the "$schema" editors read, a failure trace) name files from the base's
    // folder: rewritten to name the same files from the output's.
    const std::filesystem::path out_dir = std::filesystem::path(output).parent_path();
    rebase_relative_paths(doc, std::filesystem::path(target.base_path).parent_path(), out_dir);
    // What is written must load: the whole scenario through the loader, from where it will be.
    try {
      (void)load_scenario_json(doc, output, out_dir.empty() ? "." : out_dir.string());
    } catch (const InputError& e) {
      std::string why;
      for (const Problem& p : e.problems()) why += "\n  " + format_problem(p);
      throw ModelError(command, fmt::format("the calibrated scenario would not load, so nothing was written:{}", why));
    }
  }
  write_output_file(output, doc.dump(2) + '\n');
  if (json) {
    ctx.out << calibration_json(cal).dump(2) << '\n';
  } else {
    ctx.out << calibration_table(cal);
  }
  ctx.err << fmt::format("ckptsim {}: {} written to {}\n", command, target.base_path.empty() ? "fitted fields" : "calibrated scenario", output);
  // The fits that held were written; each refused one is a warning with its files and samples
  // (exit 0: every field written is right under its fit; the refused ones kept their values).
  for (const std::string& refusal : cal.refused) {
    ctx.err << "warning: " << refusal << (refusal.ends_with('\n') ? "" : "\n");
  }
  if (!cal.refused.empty()) {
    std::string written;
    auto walk = [&](auto&& self, const nlohmann::json& j, const std::string& ptr) -> void {
      if (!j.is_object()) {
        written += (written.empty() ? "" : ", ") + ptr;
        return;
      }
      for (const auto& [k, v] : j.items()) self(self, v, ptr + "/" + k);
    };
    walk(walk, cal.fields, "");
    ctx.err << fmt::format("warning: {} fit(s) refused, their fields not written; the fields of the fits that held are in {}: {}\n",
                           cal.refused.size(), output, written);
  }
}

}  // namespace ckptsim::cli
