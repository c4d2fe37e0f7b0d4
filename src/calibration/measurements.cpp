#include "ckptsim/calibration/measurements.hpp"

#include "ckptsim/calibration/kernel_classes.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "ckptsim/calibration/torch_profiler.hpp"
#include "json_reader.hpp"

namespace ckptsim {

const std::vector<SampleKindInfo>& sample_kinds() {
  static const std::vector<SampleKindInfo> kinds = {
      {SampleKind::all_gather, "all-gather", RateModel::alpha_beta, "B/s", 1, 1},
      {SampleKind::reduce_scatter, "reduce-scatter", RateModel::alpha_beta, "B/s", 1, 1},
      {SampleKind::all_reduce, "all-reduce", RateModel::alpha_beta, "B/s", 2, 2},
      {SampleKind::all_to_all, "all-to-all", RateModel::alpha_beta, "B/s", 1, 1},
      {SampleKind::p2p, "p2p", RateModel::alpha_beta, "B/s", 0, 0},
      {SampleKind::host_copy, "host-copy", RateModel::proportional, "B/s", 0, 0},
      {SampleKind::compute, "compute", RateModel::proportional, "FLOP/s", 0, 0},
  };
  return kinds;
}

const SampleKindInfo& sample_kind_info(SampleKind kind) {
  for (const SampleKindInfo& k : sample_kinds()) {
    if (k.kind == kind) return k;
  }
  return sample_kinds().front();  // unreachable: every enumerator is in the table
}

std::optional<SampleKind> parse_sample_kind(std::string_view name) {
  for (const SampleKindInfo& k : sample_kinds()) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

double bus_bytes(SampleKind kind, double total_bytes, int ranks) {
  const double f = sample_kind_info(kind).bus_factor_times_n;
  if (f == 0) return total_bytes;
  return f * total_bytes * (ranks - 1) / ranks;
}

double latency_steps(SampleKind kind, int ranks) {
  const SampleKindInfo& k = sample_kind_info(kind);
  if (k.model == RateModel::proportional) return 0;
  return k.steps_per_rank > 0 ? k.steps_per_rank * (ranks - 1) : 1.0;
}

void add_microbench_samples(const nlohmann::json& doc, const std::string& file, MeasurementSet& out) {
  const JsonReader r(file);
  if (!doc.is_object()) r.fail("", "a microbenchmark file (a JSON object)", std::string("a JSON ") + doc.type_name());
  const std::string format = r.text(doc, "", "format");
  if (format != "ckptsim-microbench/1") r.fail("/format", "\"ckptsim-microbench/1\"", "\"" + format + "\"");
  const int ranks = r.integer(doc, "", "ranks", 1, kMaxRanks);
  if (r.text(doc, "", "backend") == "mpi") out.emulated = true;
  const double paced = r.number(doc, "", "paced_bandwidth_bytes_per_s", 0, 1e18);
  if (paced > 0) {
    if (out.paced_rate && *out.paced_rate != paced) {
      r.fail("/paced_bandwidth_bytes_per_s", fmt::format("the pacing of the other measurements ({} B/s)", *out.paced_rate), fmt::format("{} B/s", paced));
    }
    out.paced_rate = paced;
  }
  const auto& samples = r.array(doc, "", "samples");
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const std::string ptr = fmt::format("/samples/{}", i);
    const std::string kind = r.text(samples[i], ptr, "kind");
    Measurement m;
    m.ranks = ranks;
    m.nodes = ranks;  // each rank stands for a machine of one GPU
    m.origin = fmt::format("{}: {}", file, ptr);
    m.seconds = r.number(samples[i], ptr, "seconds", 0, kMaxSeconds);
    if (!(m.seconds > 0)) r.fail(ptr + "/seconds", "a positive time", "0");
    if (kind == "gemm") {
      m.kind = SampleKind::compute;
      m.x = r.number(samples[i], ptr, "flops", 0, 1e21);
    } else if (kind == "host-copy" || kind == "all-gather" || kind == "reduce-scatter" || kind == "p2p") {
      m.kind = *parse_sample_kind(kind);
      m.x = r.number(samples[i], ptr, "bytes", 0, 1e18);
      if (m.kind == SampleKind::p2p) m.ranks = m.nodes = 2;  // rank 2i to rank 2i+1
    } else {
      r.fail(ptr + "/kind", "\"gemm\", \"host-copy\", \"all-gather\", \"reduce-scatter\" or \"p2p\"", "\"" + kind + "\"");
    }
    if (!(m.x > 0)) r.fail(ptr + (m.kind == SampleKind::compute ? "/flops" : "/bytes"), "a positive size", "0");
    if (m.kind != SampleKind::compute) m.size_bytes = m.x;
    if ((m.kind == SampleKind::all_gather || m.kind == SampleKind::reduce_scatter) && ranks < 2) {
      r.fail("/ranks", "at least 2 ranks for collective samples", fmt::format("{}", ranks));
    }
    out.samples.push_back(std::move(m));
  }
  out.sources.push_back(file);
}

void add_timeline_samples(const MeasuredTimeline& t, MeasurementSet& out) {
  const int n = static_cast<int>(t.ranks.size());
  if (t.backend == "mpi") out.emulated = true;
  if (t.paced_bandwidth_bytes_per_s > 0) {
    if (out.paced_rate && *out.paced_rate != t.paced_bandwidth_bytes_per_s) {
      throw InputError(t.file, "/paced_bandwidth_bytes_per_s", fmt::format("the pacing of the other measurements ({} B/s)", *out.paced_rate),
                       fmt::format("{} B/s", t.paced_bandwidth_bytes_per_s));
    }
    out.paced_rate = t.paced_bandwidth_bytes_per_s;
  }
  auto add = [&](SampleKind kind, double x, double seconds, int ranks, const std::string& ptr) {
    // A zero-size operation (a boundary step of 0 FLOPs, an empty chunk) says nothing about a
    // rate: it is not a sample. A positive size in zero time would be an infinitely fast one:
    // the timeline is refused.
    if (x <= 0) return;
    if (!(seconds > 0)) throw InputError(t.file, ptr, "an operation that took time (end after start)", "a zero-length span");
    out.samples.push_back({kind, x, seconds, ranks, ranks, fmt::format("{}: {}", t.file, ptr), kind == SampleKind::compute ? 0.0 : x});
  };
  for (int r = 0; r < n; ++r) {
    const auto& its = t.ranks[static_cast<std::size_t>(r)].iterations;
    for (std::size_t i = 0; i < its.size(); ++i) {
      const std::string base = fmt::format("/ranks/{}/iterations/{}", r, i);
      for (std::size_t k = 0; k < its[i].operations.size(); ++k) {
        const MeasuredOp& op = its[i].operations[k];
        const std::string ptr = fmt::format("{}/operations/{}", base, k);
        if (op.kind == "compute") add(SampleKind::compute, op.flops, op.span.length(), n, ptr);
        else add(*parse_sample_kind(op.kind), op.bytes, op.span.length(), n, ptr);
      }
      for (std::size_t k = 0; k < its[i].sends.size(); ++k) {
        add(SampleKind::p2p, its[i].sends[k].bytes, its[i].sends[k].span.length(), 2, fmt::format("{}/sends/{}", base, k));
      }
      for (std::size_t k = 0; k < its[i].copies.size(); ++k) {
        add(SampleKind::host_copy, its[i].copies[k].bytes, its[i].copies[k].copy.length(), n, fmt::format("{}/copies/{}", base, k));
      }
    }
  }
  out.sources.push_back(t.file);
}

namespace {

std::optional<SampleKind> kind_of_collective(const std::string& c) {
  if (c == "allreduce") return SampleKind::all_reduce;
  if (c == "allgather" || c == "allgatherbase" || c == "allgatherintotensor" || c == "allgathercoalesced") return SampleKind::all_gather;
  if (c == "reducescatter" || c == "reducescatterbase" || c == "reducescattertensor" || c == "reducescattertensorcoalesced") return SampleKind::reduce_scatter;
  if (c == "alltoall" || c == "alltoallbase" || c == "alltoallv") return SampleKind::all_to_all;
  if (c == "sendrecv" || c == "send" || c == "recv") return SampleKind::p2p;
  return std::nullopt;
}

}  // namespace

void add_kernel_samples(const nlohmann::json& doc, const std::string& file, MeasurementSet& out) {
  std::map<std::string, std::size_t> skipped;
  const std::vector<ProfiledRank> ranks = parse_kernel_classes_document(doc, file);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    for (std::size_t s = 0; s < ranks[i].steps.size(); ++s) {
      const ProfiledStep& st = ranks[i].steps[s];
      const std::string sp = fmt::format("/ranks/{}/steps/{}", i, s);
      for (std::size_t k = 0; k < st.collectives.size(); ++k) {
        const ProfiledCollective& c = st.collectives[k];
        const auto kind = kind_of_collective(c.collective);
        if (!kind) { ++skipped["collectives ckptsim does not model (" + c.collective + ")"]; continue; }
        if (c.bytes <= 0) { ++skipped["collectives the trace gives no size of"]; continue; }
        if (c.machines <= 0) { ++skipped["collectives of unknown machine count (import with --gpus-per-machine)"]; continue; }
        if (c.group_size < 2) { ++skipped["collectives of unknown group size"]; continue; }
        if (!(c.seconds > 0)) throw InputError(file, fmt::format("{}/collectives/{}/seconds", sp, k), "a positive time", "0");
        Measurement x;
        x.kind = *kind;
        x.x = bus_bytes(*kind, c.bytes, *kind == SampleKind::p2p ? 2 : c.group_size);
        x.seconds = c.seconds;
        x.ranks = *kind == SampleKind::p2p ? 2 : c.group_size;
        x.nodes = *kind == SampleKind::p2p ? std::min(2, c.machines) : c.machines;
        x.origin = fmt::format("{}: {}/collectives/{}", file, sp, k);
        x.size_bytes = c.bytes;
        out.samples.push_back(std::move(x));
      }
      for (const auto& [name, t] : st.classes) {
        const std::optional<KernelClass> cls = model_kernel_class(name);
        if (!cls) continue;  // nccl, optimizer, other, memcpy, memset: not kernel-model classes
        if (!(t.seconds > 0)) throw InputError(file, fmt::format("{}/classes/{}/seconds", sp, name), "a positive time", fmt::format("{}", t.seconds));
        out.class_samples.push_back({*cls, t.seconds, fmt::format("{}: {}/classes/{}", file, sp, name)});
      }
      for (std::size_t k = 0; k < st.copies.size(); ++k) {
        const ProfiledCopy& c = st.copies[k];
        if (c.direction != "DtoH") { ++skipped["copies other than device-to-host"]; continue; }
        if (c.bytes <= 0 || !(c.seconds > 0)) { ++skipped["device-to-host copies of no size or time"]; continue; }
        out.samples.push_back({SampleKind::host_copy, c.bytes, c.seconds, 1, 1, fmt::format("{}: {}/copies/{}", file, sp, k), c.bytes});
      }
    }
  }
  for (const auto& [why, count] : skipped) out.notes.push_back(fmt::format("{}: {} {}: read, not samples", file, count, why));
  out.sources.push_back(file);
}

std::vector<RateSample> rate_samples(const std::vector<Measurement>& samples) {
  std::vector<RateSample> out;
  for (const Measurement& m : samples) {
    out.push_back({m.x, m.seconds, std::max(1.0, latency_steps(m.kind, m.ranks)), m.origin});
  }
  return out;
}

}  // namespace ckptsim
