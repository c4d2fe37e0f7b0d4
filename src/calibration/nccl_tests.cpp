#include "ckptsim/calibration/nccl_tests.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

namespace {

std::vector<std::string> tokens(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

// The line without mpirun's "[1,0]<stdout>:" tag, a trailing CR and a leading "#".
std::string_view clean(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.size() > 2 && line.front() == '[') {
    const auto tag = line.find(">:");
    if (tag != std::string_view::npos && tag < 40 && line.substr(0, tag).find("<std") != std::string_view::npos) line.remove_prefix(tag + 2);
  }
  const auto first = line.find_first_not_of(" \t");
  if (first != std::string_view::npos && line[first] == '#') line.remove_prefix(first + 1);
  return line;
}

std::optional<SampleKind> kind_from_name(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  name.erase(std::remove(name.begin(), name.end(), '_'), name.end());
  name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
  // Longest names first: "allreduce" must not be taken for "reduce".
  const std::pair<const char*, SampleKind> names[] = {{"reducescatter", SampleKind::reduce_scatter}, {"allgather", SampleKind::all_gather},
                                                       {"allreduce", SampleKind::all_reduce},         {"alltoall", SampleKind::all_to_all},
                                                       {"sendrecv", SampleKind::p2p}};
  for (const auto& [n, k] : names) {
    if (name.find(n) != std::string::npos) return k;
  }
  return std::nullopt;
}

bool is_number(const std::string& t, double& v) {
  const char* b = t.data();
  const auto [p, ec] = std::from_chars(b, b + t.size(), v);
  return ec == std::errc() && p == b + t.size();
}

struct Columns {
  std::size_t count = 0;
  std::size_t size = 0, time[2] = {0, 0}, wrong[2] = {0, 0};
  bool has_wrong[2] = {false, false};
  bool wrong_is_count[2] = {true, true};  // "#wrong" (a count); older "error" (the largest deviation)
};

std::optional<Columns> column_header(const std::vector<std::string>& t) {
  if (t.size() < 6 || t[0] != "size" || t[1] != "count") return std::nullopt;
  Columns c;
  c.count = t.size();
  int times = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == "time" && times < 2) c.time[times++] = i;
    if ((t[i] == "#wrong" || t[i] == "error") && times >= 1) {
      c.wrong[times - 1] = i;
      c.has_wrong[times - 1] = true;
      c.wrong_is_count[times - 1] = t[i] == "#wrong";
    }
  }
  if (times != 2) return std::nullopt;
  return c;
}

struct RankLine {
  int rank = 0;  ///< -1: digits beyond kMaxRank (refused by the parser, which knows the line)
  std::string host, device;
};

/// The largest rank a Rank line may name (a million ranks, the importers' bound on world sizes).
constexpr int kMaxRank = 1'000'000;

std::optional<RankLine> rank_line(std::string_view line) {
  if (line.find("Rank") == std::string_view::npos || line.find(" on ") == std::string_view::npos) return std::nullopt;
  static const std::regex re(R"(^\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+\d+\s+\[[^\]]*\]\s*(.*?)\s*$)");
  std::cmatch m;
  const std::string s(line);
  if (!std::regex_match(s.c_str(), m, re)) return std::nullopt;
  // from_chars, not stoi: a rank of more digits than an int holds is bad input, not an exception
  // from the standard library (CI's import fuzzer, 5 December 2026: std::out_of_range escaped).
  const std::string digits = m[1].str();
  int rank = -1;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
  if (error != std::errc() || end != digits.data() + digits.size() || rank > kMaxRank) rank = -1;
  return RankLine{rank, m[2].str(), m[3].str()};
}

constexpr NcclAlgorithm kAlgorithms[] = {NcclAlgorithm::tree,  NcclAlgorithm::ring,      NcclAlgorithm::collnet_direct, NcclAlgorithm::collnet_chain,
                                         NcclAlgorithm::nvls,  NcclAlgorithm::nvls_tree, NcclAlgorithm::pat};

std::string squeeze(std::string_view name) {
  std::string n;
  for (const char c : name) {
    if (c != '_' && c != '-') n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return n;
}

// NCCL's TUNING line of one call: "AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE ..."
// (NCCL >= 2.24) or "1048576 Bytes -> Algo 1 proto 2 time 12.3" (older): the size and algorithm,
// when the line names no function or all-reduce.
std::optional<std::pair<double, NcclAlgorithm>> tuning_line(std::string_view line) {
  // NCCL's lines are short; a long one is something else (and std::regex recurses per character).
  if (line.size() > 512 || line.find("Bytes -> Algo") == std::string_view::npos) return std::nullopt;
  static const std::regex re(R"((?:(\w+):\s+)?(\d{1,18})\s+Bytes\s+->\s+Algo\s+(\w+)\s+proto)");
  std::cmatch m;
  const std::string s(line);
  if (!std::regex_search(s.c_str(), m, re)) return std::nullopt;
  if (m[1].matched && squeeze(m[1].str()) != "allreduce") return std::nullopt;
  const std::string a = m[3].str();
  std::optional<NcclAlgorithm> algo;
  if (a.size() == 1 && a[0] >= '0' && a[0] <= '6') algo = kAlgorithms[a[0] - '0'];
  else algo = parse_nccl_algorithm(a);
  if (!algo) return std::nullopt;
  return std::pair{std::stod(m[2].str()), *algo};
}

// NCCL_ALGO's value where the log states it: NCCL's "NCCL_ALGO set by environment to X" or X of
// "NCCL_ALGO=X" (a command line, mpirun's -x, an environment dump). Read by hand, not by a
// regular expression: command lines can be long, and std::regex recurses per character.
std::optional<std::string> algo_setting(std::string_view line) {
  constexpr std::string_view name = "NCCL_ALGO", said = "set by environment to";
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  const auto value_char = [&](char c) { return word(c) || c == ',' || c == ';' || c == ':' || c == '^'; };
  for (std::size_t at = line.find(name); at != std::string_view::npos; at = line.find(name, at + 1)) {
    std::size_t p = at + name.size();
    if ((at > 0 && word(line[at - 1])) || (p < line.size() && word(line[p]))) continue;  // NCCL_ALGO_X, XNCCL_ALGO
    while (p < line.size() && line[p] == ' ') ++p;
    if (p < line.size() && line[p] == '=') {
      ++p;
    } else if (line.substr(p, said.size()) == said) {
      p += said.size();
    } else {
      continue;
    }
    while (p < line.size() && line[p] == ' ') ++p;
    if (p < line.size() && (line[p] == '"' || line[p] == '\'')) ++p;
    std::size_t end = p;
    while (end < line.size() && value_char(line[end])) ++end;
    if (end > p) return std::string(line.substr(p, end - p));
  }
  return std::nullopt;
}

// The algorithms an NCCL_ALGO value leaves all-reduce (NCCL's syntax, src/graph/tuning.cc
// parseList: ';'-separated lists, each "elem,elem" or "^elem,...", all but the first after a
// "function:" prefix), or none when it does not restrict all-reduce.
std::optional<std::set<NcclAlgorithm>> allowed_for_all_reduce(const std::string& value) {
  std::optional<std::string> list;
  std::size_t pos = 0;
  while (pos <= value.size()) {
    const std::size_t end = std::min(value.find(';', pos), value.size());
    const std::string entry = value.substr(pos, end - pos);
    const auto colon = entry.find(':');
    if (colon == std::string::npos) {
      if (!list) list = entry;
    } else if (squeeze(entry.substr(0, colon)) == "allreduce") {
      list = entry.substr(colon + 1);
    }
    pos = end + 1;
  }
  if (!list) return std::nullopt;
  const bool exclude = !list->empty() && (*list)[0] == '^';
  std::set<NcclAlgorithm> named;
  std::size_t p = exclude ? 1 : 0;
  while (p <= list->size()) {
    const std::size_t end = std::min(list->find(',', p), list->size());
    if (const auto a = parse_nccl_algorithm(list->substr(p, end - p))) named.insert(*a);
    p = end + 1;
  }
  std::set<NcclAlgorithm> out;
  for (const NcclAlgorithm a : kAlgorithms) {
    if (a != NcclAlgorithm::pat && (named.count(a) > 0) != exclude) out.insert(a);  // PAT runs no all-reduce
  }
  return out;
}

class Parser {
 public:
  Parser(std::string file, const NcclTestsOptions& o) : file_(std::move(file)), o_(o) {}

  void line(std::string_view raw, int number) {
    line_ = number;
    const std::string_view l = clean(raw);
    const std::vector<std::string> t = tokens(l);
    if (t.empty()) return;
    if (t.size() >= 4 && t[0] == "Collective" && t[1] == "test" && t[2] == "starting:") {
      start_run();
      test_ = t[3];
      return;
    }
    if (t[0] == "nThread") {
      if (!rows_.empty() || header_) start_run();
      return;
    }
    if (const auto setting = algo_setting(l)) {
      if (!algo_env_) algo_env_ = std::pair{*setting, line_};
      return;
    }
    if (const auto tuning = tuning_line(l)) {
      tuning_[tuning->first].insert(tuning->second);
      return;
    }
    if (const auto r = rank_line(l)) {
      if (r->rank < 0) fail(fmt::format("a Rank line with a rank of at most {}", kMaxRank), std::string(l.substr(0, 80)));
      if (!rows_.empty()) start_run();
      ranks_[r->rank] = *r;
      return;
    }
    if (const auto c = column_header(t)) {
      if (!rows_.empty()) start_run();
      header_ = c;
      return;
    }
    if (t[0] == "Avg" && t.size() > 1 && t[1] == "bus") {
      finish_run();
      return;
    }
    double size = 0;
    if (!is_number(t[0], size)) return;  // prose, NCCL INFO lines, the "(B) (elements)" units line
    if (!header_) fail(fmt::format("a result row after a column header (size count type ... time algbw busbw ...)"), t[0]);
    if (t.size() != header_->count) fail(fmt::format("{} columns, as the header", header_->count), fmt::format("{} columns", t.size()));
    if (!(size >= 0) || size != std::floor(size) || size > 1e18) fail("a size in bytes (a whole number >= 0)", t[0]);
    for (int k = 0; k < 2; ++k) {
      double us = 0;
      const std::string& cell = t[header_->time[k]];
      if (!is_number(cell, us) || !(us > 0) || !std::isfinite(us)) fail(fmt::format("a positive {} time in microseconds", k ? "in-place" : "out-of-place"), cell);
      const std::string w = header_->has_wrong[k] ? t[header_->wrong[k]] : "N/A";
      if (w != "N/A") {
        double wrong = 0;
        if (header_->wrong_is_count[k] && (!is_number(w, wrong) || wrong != 0)) {
          fail("#wrong 0 (nccl-tests found wrong results in this row: its times are not those of a working collective)", w);
        }
        // The older "error" column is the largest deviation from the expected result: rounding
        // of the reduction (1e-7 in float, 1e-3 in half) is fine, anything near 1 is data corruption.
        if (!header_->wrong_is_count[k] && (!is_number(w, wrong) || !(std::abs(wrong) < 1e-2))) {
          fail("an error below 1e-2 (the largest deviation from the expected result; larger ones mean wrong results)", w);
        }
      }
      rows_.push_back({size, us * 1e-6, k == 1, line_});
    }
  }

  std::vector<NcclTestsRun> finish() {
    finish_run();
    if (runs_.empty()) throw InputError(file_, "", "nccl-tests output (result rows under a \"size count type ... time algbw busbw\" header)", "no result row");
    std::vector<NcclTestsRun> out;
    for (Pending& p : runs_) out.push_back(samples_of(p));
    return out;
  }

 private:
  struct Row {
    double size, seconds;
    bool in_place;
    int line;
  };
  struct Pending {
    NcclTestsRun run;
    std::vector<Row> rows;
    std::map<double, std::set<NcclAlgorithm>> tuning;
  };

  // The algorithm of an all-reduce over >= 2 machines, and why (nccl_tests.hpp, first that applies).
  std::pair<NcclAlgorithm, std::string> algorithm_of(const Pending& p, double size) const {
    const int machines = p.run.machines;
    if (o_.algorithm) return {*o_.algorithm, "set by --algorithm"};
    if (const auto t = p.tuning.find(size); t != p.tuning.end() && t->second.size() == 1) {
      return {*t->second.begin(), "NCCL's TUNING lines for this size"};
    }
    const NcclAlgorithm fallback = machines == 2 ? NcclAlgorithm::tree : NcclAlgorithm::ring;
    const std::string why = machines == 2 ? "NCCL runs all-reduce over 2 machines as a tree (nccl-tests issues 22 and 196, NCCL issue 235); "
                                            "each NIC carries S bytes per direction, the NIC rate is algbw; --algorithm ring if NCCL_ALGO=Ring was set"
                                          : fmt::format("a ring over {} machines (nccl-tests' busbw; a tree's busiest NIC would move 2 S, the same within (n-1)/n)", machines);
    if (algo_env_) {
      const auto allowed = allowed_for_all_reduce(algo_env_->first);
      if (allowed) {
        const std::string env = fmt::format("NCCL_ALGO={} (line {})", algo_env_->first, algo_env_->second);
        const bool tree = allowed->count(NcclAlgorithm::tree) > 0, ring = allowed->count(NcclAlgorithm::ring) > 0;
        if (allowed->size() == 1) return {*allowed->begin(), env};
        if (tree && ring) return {fallback, env + " leaves tree and ring: " + why};
        if (tree) return {NcclAlgorithm::tree, env + " leaves no ring"};
        if (ring) return {NcclAlgorithm::ring, env + " leaves no tree"};
        if (!allowed->empty()) return {*allowed->begin(), env};
      }
    }
    return {fallback, why};
  }

  NcclTestsRun samples_of(Pending& p) const {
    NcclTestsRun run = std::move(p.run);
    std::map<std::string, std::set<double>> read_as;  // description -> sizes
    for (const Row& r : p.rows) {
      Measurement m;
      m.kind = run.kind;
      m.x = bus_bytes(run.kind, r.size, run.ranks);
      m.size_bytes = r.size;
      if (run.kind == SampleKind::all_reduce && run.machines >= 2) {
        const auto [algo, why] = algorithm_of(p, r.size);
        m.x = all_reduce_nic_bytes(algo, r.size, run.ranks, run.machines);
        read_as[fmt::format("{} ({})", nccl_algorithm_name(algo), why)].insert(r.size);
      } else {
        read_as[run.kind == SampleKind::p2p          ? "send/receive (x = S)"
                : run.kind == SampleKind::all_reduce ? "ring (one machine: nccl-tests' busbw, the NVLink rate)"
                                                     : "nccl-tests' busbw (x = (n-1)/n S)"]
            .insert(r.size);
      }
      m.seconds = r.seconds;
      m.ranks = run.kind == SampleKind::p2p ? 2 : run.ranks;
      m.nodes = run.kind == SampleKind::p2p ? std::min(2, run.machines) : run.machines;
      // sendrecv_perf pairs rank r with r + 1 around the ring: with one rank per machine every
      // pair crosses the network, otherwise most pairs stay inside a machine.
      if (run.kind == SampleKind::p2p && run.ranks != run.machines) m.nodes = 1;
      m.origin = fmt::format("{}: line {}{}", file_, r.line, r.in_place ? " (in-place)" : "");
      run.samples.push_back(std::move(m));
    }
    std::set<double> all;
    for (const Row& r : p.rows) all.insert(r.size);
    for (const auto& [what, sizes] : read_as) {
      run.algorithms.push_back(sizes.size() == all.size() ? what : fmt::format("{} of {} sizes: {}", sizes.size(), all.size(), what));
    }
    return run;
  }

  [[noreturn]] void fail(const std::string& expected, const std::string& found) const {
    throw InputError(file_, fmt::format("line {}", line_), expected, found);
  }

  void start_run() {
    finish_run();
    ranks_.clear();
    tuning_.clear();
    header_.reset();
    test_.clear();
    run_line_ = line_;
  }

  void finish_run() {
    if (rows_.empty()) return;
    NcclTestsRun run;
    run.file = file_;
    run.first_line = run_line_;
    run.test = test_;
    std::optional<SampleKind> kind = test_.empty() ? std::nullopt : kind_from_name(test_);
    if (!kind) kind = kind_from_name(file_.substr(file_.find_last_of('/') == std::string::npos ? 0 : file_.find_last_of('/') + 1));
    if (!kind) kind = o_.collective;
    if (!kind) {
      throw InputError(file_, fmt::format("line {}", run_line_), "a run of a known test: a \"Collective test starting\" line, a file named after the test "
                       "(all_gather_perf, reduce_scatter_perf, all_reduce_perf, sendrecv_perf, alltoall_perf) or --collective",
                       test_.empty() ? "none of them" : "\"" + test_ + "\"");
    }
    run.kind = *kind;
    if (run.test.empty()) run.test = std::string(sample_kind_info(*kind).name);
    std::set<std::string> hosts, devices;
    for (const auto& [r, l] : ranks_) hosts.insert(l.host), devices.insert(l.device);
    const bool complete = !ranks_.empty() && ranks_.rbegin()->first + 1 == static_cast<int>(ranks_.size());
    run.ranks = o_.ranks ? *o_.ranks : complete ? static_cast<int>(ranks_.size()) : 0;
    run.machines = o_.machines ? *o_.machines : complete ? static_cast<int>(hosts.size()) : 0;
    if (run.ranks < 1 || run.machines < 1) {
      throw InputError(file_, fmt::format("line {}", run_line_), "the Rank lines of every rank 0..n-1 (for the rank and machine counts), or --ranks and --machines",
                       ranks_.empty() ? "no Rank line" : fmt::format("Rank lines of {} ranks, up to rank {}", ranks_.size(), ranks_.rbegin()->first));
    }
    if ((run.kind != SampleKind::p2p && run.ranks < 2) || run.machines > run.ranks) {
      throw InputError(file_, fmt::format("line {}", run_line_), "at least 2 ranks for a collective, and no more machines than ranks",
                       fmt::format("{} ranks on {} machines", run.ranks, run.machines));
    }
    run.devices.assign(devices.begin(), devices.end());
    runs_.push_back({std::move(run), std::move(rows_), std::move(tuning_)});
    rows_.clear();
    tuning_.clear();
  }

  std::string file_;
  NcclTestsOptions o_;
  int line_ = 0, run_line_ = 1;
  std::string test_;
  std::map<int, RankLine> ranks_;
  std::optional<Columns> header_;
  std::vector<Row> rows_;
  std::map<double, std::set<NcclAlgorithm>> tuning_;         ///< this run's TUNING lines: size -> algorithms
  std::optional<std::pair<std::string, int>> algo_env_;       ///< NCCL_ALGO's value and line (the whole file)
  std::vector<Pending> runs_;
};

}  // namespace

std::optional<SampleKind> parse_nccl_test_name(std::string_view name) { return kind_from_name(std::string(name)); }

std::optional<NcclAlgorithm> parse_nccl_algorithm(std::string_view name) {
  const std::string n = squeeze(name);
  const std::pair<const char*, NcclAlgorithm> names[] = {{"tree", NcclAlgorithm::tree},           {"ring", NcclAlgorithm::ring},
                                                          {"collnetdirect", NcclAlgorithm::collnet_direct}, {"collnetchain", NcclAlgorithm::collnet_chain},
                                                          {"nvls", NcclAlgorithm::nvls},           {"nvlstree", NcclAlgorithm::nvls_tree},
                                                          {"pat", NcclAlgorithm::pat}};
  for (const auto& [k, a] : names) {
    if (n == k) return a;
  }
  return std::nullopt;
}

std::string_view nccl_algorithm_name(NcclAlgorithm a) {
  switch (a) {
    case NcclAlgorithm::tree: return "tree";
    case NcclAlgorithm::ring: return "ring";
    case NcclAlgorithm::collnet_direct: return "collnet-direct";
    case NcclAlgorithm::collnet_chain: return "collnet-chain";
    case NcclAlgorithm::nvls: return "nvls";
    case NcclAlgorithm::nvls_tree: return "nvls-tree";
    case NcclAlgorithm::pat: return "pat";
  }
  return "ring";
}

double all_reduce_nic_bytes(NcclAlgorithm a, double s, int ranks, int machines) {
  switch (a) {
    case NcclAlgorithm::tree:
    case NcclAlgorithm::nvls_tree: return machines <= 2 ? s : 2 * s;
    // In-network reduction (SHARP; NVLS across machines needs it): S into the switch, S back.
    case NcclAlgorithm::collnet_direct:
    case NcclAlgorithm::collnet_chain: return machines >= 2 ? s : bus_bytes(SampleKind::all_reduce, s, ranks);
    case NcclAlgorithm::nvls: return machines >= 2 ? s : bus_bytes(SampleKind::all_reduce, s, ranks);
    default: return bus_bytes(SampleKind::all_reduce, s, ranks);
  }
}

namespace {

std::string devices_text(const NcclTestsRun& r) {
  if (r.devices.empty()) return "devices not named (no Rank lines)";
  std::string d;
  for (const std::string& x : r.devices) d += (d.empty() ? "" : ", ") + (x.empty() ? std::string("(unnamed)") : x);
  return d;
}

std::string gpus_per_machine_text(const NcclTestsRun& r) {
  if (r.ranks % r.machines == 0) return fmt::format("{}", r.ranks / r.machines);
  return fmt::format("{}/{}", r.ranks, r.machines);
}

}  // namespace

std::string describe_nccl_tests_run(const NcclTestsRun& r) {
  std::string read;
  for (const std::string& a : r.algorithms) read += (read.empty() ? "" : "; ") + a;
  return fmt::format("{}: line {}: {}, {} ranks on {} machine{} ({} GPU{} each), {}; read as {}", r.file, r.first_line, r.test, r.ranks,
                     r.machines, r.machines == 1 ? "" : "s", gpus_per_machine_text(r), r.ranks == r.machines ? "" : "s", devices_text(r), read);
}

void refuse_mixed_clusters(const std::vector<NcclTestsRun>& runs) {
  const NcclTestsRun* named = nullptr;  // the first run whose Rank lines name its devices
  const NcclTestsRun* first = runs.empty() ? nullptr : &runs.front();
  for (const NcclTestsRun& r : runs) {
    if (!r.devices.empty()) {
      if (!named) named = &r;
      else if (r.devices != named->devices) {
        throw InputError(r.file, fmt::format("line {}", r.first_line),
                         fmt::format("runs of one cluster (the devices of {} line {}: {})", named->file, named->first_line, devices_text(*named)),
                         fmt::format("{}: logs of different clusters are not pooled into one fit; import each cluster's logs on its own", devices_text(r)));
      }
    }
    // GPUs per machine: ranks x machines' == ranks' x machines, without division.
    if (static_cast<long long>(r.ranks) * first->machines != static_cast<long long>(first->ranks) * r.machines) {
      throw InputError(r.file, fmt::format("line {}", r.first_line),
                       fmt::format("runs of one cluster (the {} GPUs per machine of {} line {}: {} ranks on {} machines)", gpus_per_machine_text(*first),
                                   first->file, first->first_line, first->ranks, first->machines),
                       fmt::format("{} GPUs per machine ({} ranks on {} machines): logs of different clusters, or of another GPU count per "
                                   "machine, are not pooled into one fit; import each on its own",
                                   gpus_per_machine_text(r), r.ranks, r.machines));
    }
  }
}

std::vector<NcclTestsRun> parse_nccl_tests(std::string_view text, const std::string& file, const NcclTestsOptions& options) {
  Parser p(file, options);
  int number = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    if (text.substr(pos, end - pos).find('\0') != std::string_view::npos) {
      throw InputError(file, fmt::format("line {}", number + 1), "text", "a NUL byte");
    }
    p.line(text.substr(pos, end - pos), ++number);
    if (end == text.size()) break;
    pos = end + 1;
  }
  return p.finish();
}

}  // namespace ckptsim
