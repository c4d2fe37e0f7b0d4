#include "ckptsim/checkpoint/placement.hpp"

#include <algorithm>
#include <fstream>
#include <numeric>
#include <sstream>

#include <boost/random/uniform_int_distribution.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/core/random.hpp"

namespace ckptsim {
namespace {

void check_counts(int machines, int replicas) {
  if (machines < 1) throw PlacementError("/cluster/machines", fmt::format("at least 1 machine, found {}", machines));
  if (replicas < 1) throw PlacementError("/strategy/replicas", fmt::format("at least 1 replica, found {}", replicas));
  if (replicas > machines)
    throw PlacementError("/strategy/replicas",
                         fmt::format("at most as many replicas as machines ({}), found {}", machines, replicas));
}

Placement empty_placement(std::string scheme, int machines, int replicas) {
  Placement p;
  p.scheme = std::move(scheme);
  p.machines = machines;
  p.replicas = replicas;
  p.holders.resize(static_cast<std::size_t>(machines));
  return p;
}

/// Ring over an explicit list of machines: members[j] is held by members[j..j+m-1 mod size].
void place_ring(Placement& p, const std::vector<int>& members, int replicas) {
  const int n = static_cast<int>(members.size());
  for (int j = 0; j < n; ++j) {
    auto& h = p.holders[static_cast<std::size_t>(members[static_cast<std::size_t>(j)])];
    for (int r = 0; r < replicas; ++r) h.push_back(members[static_cast<std::size_t>((j + r) % n)]);
    std::sort(h.begin(), h.end());
  }
}

/// Uniform integer in [lo, hi] from Boost.Random (identical across standard libraries).
int uniform_int(RandomEngine& engine, int lo, int hi) {
  return boost::random::uniform_int_distribution<int>(lo, hi)(engine);
}

/// Fisher-Yates shuffle written out so the order does not depend on the standard library.
void shuffle(std::vector<int>& v, RandomEngine& engine) {
  for (int i = static_cast<int>(v.size()) - 1; i > 0; --i)
    std::swap(v[static_cast<std::size_t>(i)], v[static_cast<std::size_t>(uniform_int(engine, 0, i))]);
}

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

/// Rows 1..m-1 as repaired random permutations (needs 2(m-1) <= N, see the header).
void random_latin_rows(Placement& p, RandomEngine& engine) {
  const int n = p.machines;
  for (int i = 0; i < n; ++i) p.holders[static_cast<std::size_t>(i)] = {i};
  std::vector<int> row(static_cast<std::size_t>(n));
  for (int r = 1; r < p.replicas; ++r) {
    std::iota(row.begin(), row.end(), 0);
    shuffle(row, engine);
    for (int i = 0; i < n; ++i) {
      const auto& column_i = p.holders[static_cast<std::size_t>(i)];
      while (contains(column_i, row[static_cast<std::size_t>(i)])) {
        const int j = uniform_int(engine, 0, n - 1);
        const int value_j = row[static_cast<std::size_t>(j)];
        if (j != i && !contains(column_i, value_j) &&
            !contains(p.holders[static_cast<std::size_t>(j)], row[static_cast<std::size_t>(i)]))
          std::swap(row[static_cast<std::size_t>(i)], row[static_cast<std::size_t>(j)]);
      }
    }
    for (int i = 0; i < n; ++i) p.holders[static_cast<std::size_t>(i)].push_back(row[static_cast<std::size_t>(i)]);
  }
}

/// Random distinct cyclic shifts of a random relabelling (any m <= N).
void random_cyclic_rows(Placement& p, RandomEngine& engine) {
  const int n = p.machines;
  std::vector<int> sigma(static_cast<std::size_t>(n));
  std::iota(sigma.begin(), sigma.end(), 0);
  shuffle(sigma, engine);
  std::vector<int> shifts(static_cast<std::size_t>(n - 1));
  std::iota(shifts.begin(), shifts.end(), 1);
  shuffle(shifts, engine);
  for (int j = 0; j < n; ++j) {
    auto& h = p.holders[static_cast<std::size_t>(sigma[static_cast<std::size_t>(j)])];
    h = {sigma[static_cast<std::size_t>(j)]};
    for (int r = 1; r < p.replicas; ++r)
      h.push_back(sigma[static_cast<std::size_t>((j + shifts[static_cast<std::size_t>(r - 1)]) % n)]);
  }
}

std::string json_type_name(const nlohmann::json& v) {
  if (v.is_number_integer()) return "integer " + v.dump();
  if (v.is_number()) return "number " + v.dump();
  if (v.is_string()) return "string " + v.dump();
  return std::string(v.type_name());
}

}  // namespace

std::vector<std::vector<int>> Placement::stored_on() const {
  std::vector<std::vector<int>> out(holders.size());
  for (std::size_t i = 0; i < holders.size(); ++i)
    for (int h : holders[i]) out[static_cast<std::size_t>(h)].push_back(static_cast<int>(i));
  for (auto& v : out) std::sort(v.begin(), v.end());
  return out;
}

int Placement::max_shards_per_machine() const {
  int best = 0;
  for (const auto& v : stored_on()) best = std::max(best, static_cast<int>(v.size()));
  return best;
}

Placement group_placement(int machines, int replicas) {
  check_counts(machines, replicas);
  if (machines % replicas != 0)
    throw PlacementError("/strategy/placement", fmt::format("group placement needs the replica count ({}) to divide the machine count ({}); "
                                     "use \"mixed\" otherwise",
                                     replicas, machines));
  Placement p = empty_placement("group", machines, replicas);
  for (int i = 0; i < machines; ++i) {
    const int first = (i / replicas) * replicas;
    for (int r = 0; r < replicas; ++r) p.holders[static_cast<std::size_t>(i)].push_back(first + r);
  }
  return p;
}

Placement spread_group_placement(int machines, int replicas) {
  check_counts(machines, replicas);
  if (machines % replicas != 0)
    throw PlacementError("/strategy/placement",
                         fmt::format("group-spread placement needs the group size ({}) to divide the machine count ({})",
                                     replicas, machines));
  Placement p = empty_placement("group-spread", machines, replicas);
  const int stride = machines / replicas;
  for (int i = 0; i < machines; ++i)
    for (int t = 0; t < replicas; ++t) p.holders[static_cast<std::size_t>(i)].push_back(i % stride + t * stride);
  return p;
}

bool groups_tile(PlacementScheme scheme, int machines, int replicas, int jump) {
  if (machines < 1 || replicas < 1) return false;
  if (scheme == PlacementScheme::clique) {
    const long long block = static_cast<long long>(replicas) * jump;
    return jump >= 1 && block <= machines && machines % block == 0;
  }
  return !is_group_placement(scheme) || machines % replicas == 0;
}

Placement clique_placement(int machines, int replicas, int jump) {
  check_counts(machines, replicas);
  if (!groups_tile(PlacementScheme::clique, machines, replicas, jump))
    throw PlacementError("/strategy/replication_jump",
                         fmt::format("clique placement needs the block of {} replicas x jump {} to divide the machine "
                                     "count ({})",
                                     replicas, jump, machines));
  Placement p = empty_placement("clique", machines, replicas);
  const int block = replicas * jump;
  for (int i = 0; i < machines; ++i) {
    const int first = i / block * block + i % jump;
    for (int t = 0; t < replicas; ++t) p.holders[static_cast<std::size_t>(i)].push_back(first + t * jump);
  }
  return p;
}

Placement ring_placement(int machines, int replicas) {
  check_counts(machines, replicas);
  Placement p = empty_placement("ring", machines, replicas);
  std::vector<int> all(static_cast<std::size_t>(machines));
  for (int i = 0; i < machines; ++i) all[static_cast<std::size_t>(i)] = i;
  place_ring(p, all, replicas);
  return p;
}

Placement mixed_placement(int machines, int replicas) {
  check_counts(machines, replicas);
  if (machines % replicas == 0) {
    Placement p = group_placement(machines, replicas);
    p.scheme = "mixed";
    return p;
  }
  Placement p = empty_placement("mixed", machines, replicas);
  const int groups = machines / replicas - 1;  // floor(N/m) - 1 full groups
  for (int i = 0; i < groups * replicas; ++i) {
    const int first = (i / replicas) * replicas;
    for (int r = 0; r < replicas; ++r) p.holders[static_cast<std::size_t>(i)].push_back(first + r);
  }
  std::vector<int> rest;
  for (int i = groups * replicas; i < machines; ++i) rest.push_back(i);
  place_ring(p, rest, replicas);
  return p;
}

Placement random_placement(int machines, int replicas, std::uint64_t seed) {
  check_counts(machines, replicas);
  Placement p = empty_placement("random", machines, replicas);
  RandomEngine engine = make_stream(seed, 0, RandomComponent::placement);
  if (2 * (replicas - 1) <= machines)
    random_latin_rows(p, engine);
  else
    random_cyclic_rows(p, engine);
  for (auto& h : p.holders) std::sort(h.begin(), h.end());
  return p;
}

Placement parse_placement_json(const std::string& text, const std::string& file) {
  ProblemList problems(file);
  const nlohmann::json doc = parse_json_strict(text, file);
  if (!doc.is_object()) throw InputError(file, "", "an object {\"machines\": N, \"holders\": [...]}", json_type_name(doc));
  for (const auto& [key, value] : doc.items())
    if (key != "machines" && key != "holders")
      problems.add("/" + key, "only the keys \"machines\" and \"holders\"", "unknown key \"" + key + "\"");
  int machines = 0;
  if (!doc.contains("machines")) {
    problems.add("/machines", "the number of machines (a positive integer)", "nothing");
  } else if (const auto& v = doc["machines"]; !v.is_number_integer() || v.get<long long>() < 1 ||
                                               v.get<long long>() > 1'000'000) {
    problems.add("/machines", "a positive integer (at most 1000000)", json_type_name(v));
  } else {
    machines = v.get<int>();
  }
  Placement p;
  p.scheme = "file";
  p.machines = machines;
  if (!doc.contains("holders")) {
    problems.add("/holders", "an array with one holder set per machine", "nothing");
  } else if (const auto& hs = doc["holders"]; !hs.is_array()) {
    problems.add("/holders", "an array with one holder set per machine", json_type_name(hs));
  } else {
    if (machines > 0 && static_cast<int>(hs.size()) != machines)
      problems.add("/holders", fmt::format("{} holder sets (one per machine)", machines),
                   fmt::format("{} holder sets", hs.size()));
    int size_of_first = -1;
    for (std::size_t i = 0; i < hs.size(); ++i) {
      const std::string where = fmt::format("/holders/{}", i);
      const auto& set = hs[i];
      if (!set.is_array() || set.empty()) {
        problems.add(where, "a non-empty array of machine indices", json_type_name(set) + (set.is_array() ? " (empty)" : ""));
        p.holders.emplace_back();
        continue;
      }
      std::vector<int> members;
      for (std::size_t j = 0; j < set.size(); ++j) {
        const auto& v = set[j];
        const long long upper = machines > 0 ? machines - 1 : 999'999;
        if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > upper) {
          problems.add(fmt::format("{}/{}", where, j), fmt::format("a machine index in [0, {}]", upper), json_type_name(v));
          continue;
        }
        const int m = v.get<int>();
        if (contains(members, m))
          problems.add(fmt::format("{}/{}", where, j), "distinct machines in one holder set",
                       fmt::format("machine {} a second time", m));
        else
          members.push_back(m);
      }
      if (!contains(members, static_cast<int>(i)) && static_cast<int>(members.size()) == static_cast<int>(set.size()))
        problems.add(where, fmt::format("a holder set containing machine {} itself (its local replica)", i),
                     nlohmann::json(members).dump());
      const int size = static_cast<int>(set.size());
      if (size_of_first < 0) {
        size_of_first = size;
      } else if (size != size_of_first) {
        problems.add(where, fmt::format("{} holders, as in /holders/0 (every machine keeps m replicas)", size_of_first),
                     fmt::format("{} holders", size));
      }
      std::sort(members.begin(), members.end());
      p.holders.push_back(std::move(members));
    }
    p.replicas = std::max(size_of_first, 0);
  }
  problems.throw_if_any();
  return p;
}

Placement load_placement_file(const std::filesystem::path& path) {
  return parse_placement_json(read_input_file(path.string(), "a placement file"), path.string());
}

double placement_cpu_memory_bytes(const Placement& placement, double shard_bytes) {
  return 2.0 * static_cast<double>(placement.max_shards_per_machine()) * shard_bytes;
}

const Registry<PlacementFactory>& placement_registry() {
  static const Registry<PlacementFactory> registry = [] {
    const auto name = [](PlacementScheme scheme) { return std::string(name_of(scheme)); };
    Registry<PlacementFactory> r("placement scheme");
    r.add(name(PlacementScheme::group), "groups of m consecutive machines hold each other's checkpoints (m must divide N)",
          [](int n, int m, std::uint64_t, int) { return group_placement(n, m); });
    r.add(name(PlacementScheme::ring), "machine i's checkpoint on machines i..i+m-1 (mod N)",
          [](int n, int m, std::uint64_t, int) { return ring_placement(n, m); });
    r.add(name(PlacementScheme::mixed), "groups for the first floor(N/m)-1 groups, a ring over the rest (GEMINI Algorithm 1)",
          [](int n, int m, std::uint64_t, int) { return mixed_placement(n, m); });
    r.add(name(PlacementScheme::random), "seeded random Latin-rectangle placement: every machine stores exactly m shards",
          [](int n, int m, std::uint64_t seed, int) { return random_placement(n, m, seed); });
    r.add(name(PlacementScheme::group_spread),
          "groups of m machines N/m apart, each group across m racks (domain-aware; m must divide N)",
          [](int n, int m, std::uint64_t, int) { return spread_group_placement(n, m); });
    r.add(name(PlacementScheme::clique),
          "NVIDIA Resiliency Extension cliques: groups of m machines J apart in blocks of m J (strategy.replication_jump)",
          [](int n, int m, std::uint64_t, int jump) { return clique_placement(n, m, jump); });
    return r;
  }();
  return registry;
}

Placement make_placement(PlacementScheme scheme, int machines, int replicas, std::uint64_t seed, int jump) {
  return placement_registry().at(name_of(scheme)).factory(machines, replicas, seed, jump);
}

}  // namespace ckptsim
