#pragma once
// A first scenario from the user's hardware (`ckptsim init`): an instance preset (or a GPU type
// and the machine's figures), a model preset, a machine count, a parallelism layout and a
// strategy, plus the handful of fields that decide a run's answer written out explicitly with
// their values and where each value comes from:
//
//   /failures/rate                       failures per machine per day (default: GEMINI's 1.5%)
//   /failures/hardware_fraction          share of failures that replace a machine
//   /failures/detection                  time to notice a failure
//   /failures/replacement                a replaced machine's delay (decides whether spares pay)
//   /failures/restart_phases/warmup      the stack's own restart warm-up; with the other phases
//                                        at the job's scale it makes /failures/restart
//   /storage/bandwidth                   the file system's aggregate bandwidth
//   /training/serialization_bandwidth    snapshot to CPU memory, per machine
//   /cluster/standby_machines            spares
//
// None of these is a figure of the user's hardware: every default is a published figure of
// another cluster (GEMINI's AWS testbed, SOSP '23; the OPT-175B log) or our choice, and the
// source says which (docs/references.md), so that the user knows what to measure and replace.
//
// Problems with the choices are reported all at once as InputError with file "<command line>"
// and the option as the pointer ("--tp"), since the choices come from init's options; problems
// the loader finds in the document it built carry the file it is for, the document's pointer
// and the option that wrote it ("/training/megatron/ep (--ep)").
#include <optional>
#include <string>
#include <vector>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// What `ckptsim init` was asked for. Text fields hold the option's text as given ("" = not
/// given); units are checked by starter_scenario and written as given.
struct StarterChoices {
  std::string instance;                   ///< --instance: an instance preset
  std::string gpu;                        ///< --gpu: a GPU type (replaces the instance's)
  std::optional<int> gpus_per_machine;    ///< --gpus-per-machine (needed by --gpu alone)
  std::string cpu_memory;                 ///< --cpu-memory
  std::string network_bandwidth;          ///< --network-bandwidth
  std::string gpu_cpu_bandwidth;          ///< --gpu-cpu-bandwidth
  std::string model;                      ///< --model: a model preset
  std::optional<long long> machines;      ///< --machines
  std::string parallelism;                ///< --parallelism: zero3 | megatron ("" = zero3, or megatron with --tp ...)
  std::string engine;                     ///< --engine (zero3 only)
  std::optional<long long> tp, pp, dp, cp, ep, micro_batches;  ///< megatron layout
  std::optional<long long> micro_batch, sequence_length;
  std::string attention;                  ///< --attention: unfused | flash ("" = the table's default)
  std::string strategy;                   ///< --strategy ("" = gemini)
  std::string duration;                   ///< --duration ("" = 30d)
  // The deciding fields ("" / nullopt = the starter's default, with its source).
  std::string failure_rate;               ///< --failure-rate
  std::string hardware_fraction;          ///< --hardware-fraction
  std::string detection;                  ///< --detection
  std::string replacement;                ///< --replacement
  std::string warmup;                     ///< --warmup
  std::string storage_bandwidth;          ///< --storage-bandwidth
  std::string serialization_bandwidth;    ///< --serialization-bandwidth
  std::optional<long long> spares;        ///< --spares
};

/// One field the starter wrote (or, for /failures/restart, computed), its value as the document
/// writes it and where the value comes from.
struct StarterField {
  std::string pointer;
  std::string value;
  std::string source;
  bool deciding = false;  ///< one of the fields that decide the answer (header comment)
};

struct StarterScenario {
  std::string text;                   ///< the scenario as JSON text (2-space indent, newline-terminated), keys in the order of docs/scenario-format.md
  std::vector<StarterField> fields;   ///< every field written, chosen ones first, then the deciding ones
  Scenario scenario;                  ///< the document as the loader reads it (validated)
};

/// Builds and validates the scenario (see the header comment); throws InputError listing every
/// problem. `file` names the scenario in the loader's problems and gives its name, as the file
/// it will be written to ("" = "<stdout>").
StarterScenario starter_scenario(const StarterChoices& choices, const std::string& file = "");

}  // namespace ckptsim
