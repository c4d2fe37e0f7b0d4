// The megatron iteration report (megatron_report.hpp).
#include "ckptsim/output/megatron_report.hpp"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/checkpoint/iteration_study.hpp"
#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/core/byte_units.hpp"
#include "ckptsim/output/compute_report.hpp"
#include "ckptsim/output/manifest.hpp"
#include "ckptsim/scenario/checkpoint_layout.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {
namespace {

/// Machine 0's remote in-memory copies under the scenario's placement, each with whether it sits
/// on a data-parallel peer (megatron_layout.hpp): empty unless the strategy's copies are whole
/// replicas the traffic scheduler plans (scenario/checkpoint_layout.hpp).
std::vector<std::pair<int, bool>> copy_holders(const Scenario& sc, const MegatronLayout& L) {
  std::vector<std::pair<int, bool>> out;
  if (checkpoint_layout(sc.strategy.kind) != CheckpointLayout::replicas) return out;
  const Placement p =
      make_placement(sc.strategy.placement, sc.cluster.machines, study_holders(sc), sc.run.seed, sc.strategy.replication_jump);
  for (int h : p.holders.front())
    if (h != 0) out.emplace_back(h, L.data_peer_machines(0, h));
  return out;
}


std::string layout_text(const MegatronLayout& L) {
  return fmt::format("tp {} x cp {} x dp {} x pp {} (ep {}, {} chunk{} per pipeline rank) = {} GPUs", L.tp(), L.cp(), L.dp(),
                     L.pp(), L.ep(), L.virtual_stages(), L.virtual_stages() > 1 ? "s" : "", L.world());
}

const char* schedule_name(const MegatronLayout& L) {
  if (L.pp() == 1) return "no pipeline";
  return L.virtual_stages() > 1 ? "interleaved 1F1B" : "1F1B";
}

/// The bubble of uniform stages: (p-1)/v idle chunk-times over m + (p-1)/v (Narayanan et al. §2.2).
double closed_form_bubble(const MegatronLayout& L, int m) {
  const double idle = (L.pp() - 1.0) / L.virtual_stages();
  return idle / (m + idle);
}

std::string joined(const std::vector<int>& values) {
  std::string out;
  for (int v : values) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

SimTime longest(const std::vector<PipelineSpan>& spans) {
  SimTime best;
  for (const PipelineSpan& s : spans) best = std::max(best, s.to - s.from);
  return best;
}

}  // namespace

void print_megatron_report(std::ostream& out, const Scenario& sc, const MegatronIteration& it) {
  const MegatronLayout& L = it.layout;
  const MegatronSpec& g = sc.training.megatron;
  out << fmt::format("{}: megatron, {}\n", sc.name, layout_text(L));
  out << fmt::format("schedule: {}, {} micro-batches of {} x {} tokens; sequence parallel {}, recomputation {}, "
                     "distributed optimizer {}\n\n",
                     schedule_name(L), g.micro_batches, sc.training.micro_batch, sc.training.sequence_length,
                     g.sequence_parallel ? "on" : "off", name_of(g.recomputation), g.distributed_optimizer ? "on" : "off");
  const SimTime reduce_exposed = it.iteration_time - it.schedule_time - it.param_gather_exposed;
  out << fmt::format("iteration time        {}\n", format_duration(it.iteration_time));
  out << fmt::format("  pipeline schedule   {}\n", format_duration(it.schedule_time));
  out << fmt::format("  reduce and step     {}  (exposed gradient reduce, embedding sync, optimizer step)\n",
                     format_duration(reduce_exposed));
  out << fmt::format("  parameter gather    {}  (exposed)\n", format_duration(it.param_gather_exposed));
  out << fmt::format("bubble (rank 0)       {:.1f}%  (uniform stages, closed form: {:.1f}%)\n", 100 * it.bubble_fraction(),
                     100 * closed_form_bubble(L, g.micro_batches));
  out << fmt::format("model FLOPs           {:.3g} per step, MFU {:.1f}% of {:.0f} TFLOP/s\n\n", it.model_flops,
                     100 * it.mfu(sc.cluster.gpu_peak_flops), sc.cluster.gpu_peak_flops / 1e12);
  out << fmt::format("one layer, one micro-batch: compute {} forward, {} backward; tensor-parallel {} each way "
                     "({} sent per rank forward)\n",
                     format_duration(it.layer_forward_compute), format_duration(it.layer_backward_compute),
                     format_duration(it.layer_tp_forward), format_bytes(it.tp_sent_bytes_per_layer));
  out << fmt::format("collectives inside a machine: {}\n", it.nvlink_collectives);
  out << fmt::format("pipeline transfer {}; data-parallel gradient reduce {}, parameter gather {}; {} sent per rank per step\n\n",
                     format_duration(it.p2p_forward), format_duration(it.grad_reduce), format_duration(it.param_gather),
                     format_bytes(it.dp_sent_bytes_per_step));

  out << "stage layers  params/rank  forward/mb  backward/mb  schedule end  reduce exposed  step      bubble  "
         "network idle (spans, longest)  silent idle  memory/rank\n";
  for (const MegatronStage& st : it.stages) {
    out << fmt::format("{:>5} {:>6}  {:>11.4g}  {:>10}  {:>11}  {:>12}  {:>14}  {:>8}  {:>5.1f}%  {:>10} ({}, {})  {:>11}  {:>8.2f} GiB\n",
                       st.rank, st.layers, st.parameters, format_duration(st.forward), format_duration(st.backward),
                       format_duration(st.schedule_end), format_duration(st.grad_reduce_exposed), format_duration(st.step),
                       100 * st.bubble_fraction, format_duration(st.idle_time()), st.idle_spans.size(),
                       format_duration(longest(st.idle_spans)), format_duration(st.silent_time()), st.memory.total() / kGiB);
  }
  out << "(network idle: as GEMINI's profiler sees it, a bucketed gradient reduce busy from its first launch to its last "
         "byte; silent idle: no training bytes on the NIC, the reduce's buckets only)\n";
  const auto peak = std::max_element(it.stages.begin(), it.stages.end(), [](const MegatronStage& a, const MegatronStage& b) {
    return a.memory.total() < b.memory.total();
  });
  if (peak != it.stages.end()) {
    const MegatronMemory& m = peak->memory;
    out << fmt::format("\nmemory, stage {} (the fullest): parameters {:.2f} GiB, gradients {:.2f} GiB, optimizer {:.2f} GiB, "
                       "activations {:.2f} GiB, output layer and stage edges {:.2f} GiB = {:.2f} GiB of {:.2f} GiB{}\n",
                       peak->rank, m.parameters / kGiB, m.gradients / kGiB, m.optimizer / kGiB, m.activations / kGiB,
                       m.pipeline_edges / kGiB,
                       m.total() / kGiB, sc.cluster.gpu_memory_bytes / kGiB,
                       m.total() > sc.cluster.gpu_memory_bytes ? "  (does not fit)" : "");
  }
  double shard = 0;
  for (const MegatronStage& st : it.stages) shard = std::max(shard, st.checkpoint_shard);
  const bool sharded = sc.training.megatron.distributed_optimizer;
  out << fmt::format("checkpoint: up to {} per rank ({} per machine of {} GPUs), each stage's state {} its {} "
                     "data-parallel ranks; their 16-bit parameters are {} copies{}\n",
                     format_bytes(shard), format_bytes(shard * L.gpus_per_machine()), L.gpus_per_machine(),
                     sharded ? "split over" : "whole on each of", L.dp() * L.cp(), L.dp() * L.cp(),
                     sharded ? ", the optimizer states one (distributed optimizer)" : ", and so are the optimizer states");
  if (sc.model.experts > 1) {
    const MegatronMoeDispatch& x = it.moe;
    const std::string capacity = g.moe_capacity_factor
                                     ? fmt::format("capacity {:.0f} tokens per expert and rank (factor {}{})", x.capacity,
                                                   *g.moe_capacity_factor, g.moe_pad_to_capacity ? ", padded" : "")
                                     : std::string("dropless");
    out << fmt::format("\nexpert dispatch ({} experts, top-{}, {} per rank; {}; busiest expert {}x the mean), one layer and "
                       "micro-batch:\n",
                       sc.model.experts, sc.model.experts_per_token, sc.model.experts / L.ep(), capacity, g.moe_load_imbalance);
    out << fmt::format("  a rank sends {:.0f} token rows ({:.1f}% of assignments dropped, {:.1f}% of the rows padding); the "
                       "busiest expert's rank computes {:.0f} rows, {:.0f} in that expert\n",
                       x.routed, 100 * x.dropped, 100 * x.padding, x.busiest_rank, x.busiest_expert);
    out << fmt::format("  permutations {} forward (permute {}, sort by expert {} twice, unpermute {}); all-to-all {} per call\n",
                       format_bytes(x.permutation_bytes()), format_bytes(x.permute), format_bytes(x.sort),
                       format_bytes(x.unpermute), format_bytes(x.a2a_tokens * sc.model.hidden * sc.training.word_bytes()));
  }
  if (!it.step_phases.empty()) {
    const MegatronStage& st = it.stages[static_cast<std::size_t>(it.step_stage)];
    const std::string title = fmt::format("optimizer step, stage {} ({}{}{})", st.rank,
                                          !sc.training.mixed_precision ? "fp32" : (g.fp16 ? "fp16" : "bf16"),
                                          g.distributed_optimizer ? ", distributed optimizer" : "",
                                          g.clip_grad > 0 ? fmt::format(", clip_grad {}", g.clip_grad) : std::string(", no clipping"));
    print_step_phases(out, title.c_str(), it.step_phases);
    out << fmt::format("  with its all-reduces (collectives below) {}\n", format_duration(st.step));
  }
  out << "\ncollective                           link     group  buffer      time       calls/step\n";
  for (const MegatronCollective& c : it.collectives)
    out << fmt::format("{:<36} {:<8} {:>5}  {:>10}  {:>9}  {:>10}\n", c.name, c.link, c.group, format_bytes(c.bytes),
                       format_duration(c.time), c.calls);
  const auto copies = copy_holders(sc, L);
  if (!copies.empty()) {
    std::string list;
    for (const auto& [machine, peer] : copies)
      list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", machine, peer ? "data-parallel peer: the same model slices" : "other model slices");
    out << fmt::format("\nin-memory copies of machine 0 ({} placement, {} replicas): machine {}\n", name_of(sc.strategy.placement),
                       study_holders(sc), list);
  }
  const BlastRadius b = L.machine_failure(0);
  out << fmt::format("\nmachine 0 fails: ranks {}..{} stop; {} model replica{} ({} ranks) lose{} stage{} {}; all {} ranks wait "
                     "(synchronous data-parallel reduce); parameters {} on data-parallel peers, optimizer state {}\n",
                     b.failed_ranks.front(), b.failed_ranks.back(), b.stalled_replicas.size(),
                     b.stalled_replicas.size() == 1 ? "" : "s", b.stalled_replica_ranks, b.stalled_replicas.size() == 1 ? "s" : "", b.stalled_stages.size() == 1 ? "" : "s",
                     joined(b.stalled_stages), b.stopped_ranks, b.parameters_replicated ? "survive" : "do not survive",
                     b.optimizer_replicated ? "survives" : "does not (one shard per data-parallel rank)");
}

nlohmann::json megatron_report_json(const Scenario& sc, const MegatronIteration& it, const std::string& command_line) {
  const MegatronLayout& L = it.layout;
  nlohmann::json doc;
  doc["manifest"] = make_manifest(sc, command_line);
  doc["scenario"] = sc.name;
  doc["parallelism"] = "megatron";
  doc["layout"] = {{"tp", L.tp()}, {"cp", L.cp()}, {"dp", L.dp()}, {"pp", L.pp()}, {"ep", L.ep()},
                   {"virtual_stages", L.virtual_stages()}, {"gpus", L.world()}, {"schedule", schedule_name(L)},
                   {"micro_batches", sc.training.megatron.micro_batches}};
  doc["iteration_time_s"] = it.iteration_time.seconds();
  doc["phases_s"] = {{"pipeline_schedule", it.schedule_time.seconds()},
                     {"reduce_and_step", (it.iteration_time - it.schedule_time - it.param_gather_exposed).seconds()},
                     {"parameter_gather_exposed", it.param_gather_exposed.seconds()}};
  doc["bubble"] = {{"simulated", it.bubble_fraction()}, {"closed_form_uniform", closed_form_bubble(L, sc.training.megatron.micro_batches)}};
  doc["model_flops"] = it.model_flops;
  doc["mfu"] = it.mfu(sc.cluster.gpu_peak_flops);
  doc["layer"] = {{"forward_compute_s", it.layer_forward_compute.seconds()},
                  {"backward_compute_s", it.layer_backward_compute.seconds()},
                  {"tensor_parallel_forward_s", it.layer_tp_forward.seconds()},
                  {"tensor_parallel_backward_s", it.layer_tp_backward.seconds()},
                  {"tensor_parallel_sent_bytes", it.tp_sent_bytes_per_layer},
                  {"nvlink_collectives", it.nvlink_collectives}};
  doc["data_parallel"] = {{"gradient_reduce_s", it.grad_reduce.seconds()},
                          {"parameter_gather_s", it.param_gather.seconds()},
                          {"sent_bytes_per_step", it.dp_sent_bytes_per_step}};
  doc["pipeline_transfer_s"] = it.p2p_forward.seconds();
  auto stages = nlohmann::json::array();
  for (const MegatronStage& st : it.stages) {
    auto spans = nlohmann::json::array();
    for (const PipelineSpan& s : st.idle_spans) spans.push_back({{"start_s", s.from.seconds()}, {"length_s", (s.to - s.from).seconds()}});
    stages.push_back({{"rank", st.rank},
                      {"layers", st.layers},
                      {"parameters_per_rank", st.parameters},
                      {"forward_per_micro_batch_s", st.forward.seconds()},
                      {"backward_per_micro_batch_s", st.backward.seconds()},
                      {"schedule_end_s", st.schedule_end.seconds()},
                      {"gradient_reduce_exposed_s", st.grad_reduce_exposed.seconds()},
                      {"optimizer_step_s", st.step.seconds()},
                      {"bubble_fraction", st.bubble_fraction},
                      {"network_idle_s", st.idle_time().seconds()},
                      {"network_silent_s", st.silent_time().seconds()},
                      {"checkpoint_shard_bytes", st.checkpoint_shard},
                      {"parameter_copies", st.parameter_copies},
                      {"network_idle_spans", spans},
                      {"memory_bytes",
                       {{"parameters", st.memory.parameters},
                        {"gradients", st.memory.gradients},
                        {"optimizer", st.memory.optimizer},
                        {"activations", st.memory.activations},
                        {"pipeline_edges", st.memory.pipeline_edges},
                        {"total", st.memory.total()}}}});
  }
  doc["stages"] = stages;
  if (sc.model.experts > 1)
    doc["moe_dispatch"] = {{"capacity_tokens", it.moe.capacity},
                           {"routed_rows", it.moe.routed},
                           {"busiest_expert_rows", it.moe.busiest_expert},
                           {"busiest_rank_rows", it.moe.busiest_rank},
                           {"dropped_share", it.moe.dropped},
                           {"padding_share", it.moe.padding},
                           {"all_to_all_rows", it.moe.a2a_tokens},
                           {"permutation_bytes_forward", it.moe.permutation_bytes()}};
  if (!it.step_phases.empty())
    doc["optimizer_step"] = {{"stage", it.step_stage},
                             {"phases", step_phases_json(it.step_phases)},
                             {"time_s", it.stages[static_cast<std::size_t>(it.step_stage)].step.seconds()}};
  auto colls = nlohmann::json::array();
  for (const MegatronCollective& c : it.collectives)
    colls.push_back({{"name", c.name}, {"link", c.link}, {"group", c.group}, {"buffer_bytes", c.bytes},
                     {"sent_bytes", c.sent_bytes}, {"time_s", c.time.seconds()}, {"calls_per_step", c.calls}});
  doc["collectives"] = colls;
  auto holders = nlohmann::json::array();
  for (const auto& [machine, peer] : copy_holders(sc, L)) holders.push_back({{"machine", machine}, {"data_parallel_peer", peer}});
  doc["checkpoint_copies_of_machine_0"] = holders;
  const BlastRadius b = L.machine_failure(0);
  doc["blast_radius"] = {{"machine", b.machine},
                         {"failed_ranks", b.failed_ranks},
                         {"stalled_replicas", b.stalled_replicas},
                         {"stalled_stages", b.stalled_stages},
                         {"stalled_replica_ranks", b.stalled_replica_ranks},
                         {"stopped_ranks", b.stopped_ranks},
                         {"parameters_replicated", b.parameters_replicated},
                         {"optimizer_replicated", b.optimizer_replicated}};
  return doc;
}

}  // namespace ckptsim
