#include "ckptsim/analysis/recovery_probability.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include <boost/random/uniform_int_distribution.hpp>
#include <fmt/format.h>

#include "ckptsim/core/byte_units.hpp"
#include "ckptsim/core/error.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "ckptsim/core/random.hpp"

namespace ckptsim {
namespace {

constexpr int kMaxExactSets = 22;
constexpr int kMaxEnumerationMachines = 22;

std::size_t idx(long long i) { return static_cast<std::size_t>(i); }

/// a ~= mantissa x 2^exponent with the top 64 bits of a in the mantissa.
struct TopBits {
  double mantissa = 0;
  long long exponent = 0;
};

TopBits top_bits(const BigCount& a) {
  if (a.is_zero()) return {};
  const auto msb = static_cast<long long>(boost::multiprecision::msb(a));
  const long long shift = std::max(0LL, msb - 63);
  const BigCount top = a >> static_cast<unsigned>(shift);
  return {static_cast<double>(top.convert_to<std::uint64_t>()), shift};
}

/// Distinct holder sets (sorted members), optionally only the minimal ones (no proper subset
/// among the others): a set that contains another holder set never fails alone.
std::vector<std::vector<int>> distinct_sets(const Placement& p, bool minimal_only) {
  std::vector<std::vector<int>> sets = p.holders;
  for (auto& s : sets) std::sort(s.begin(), s.end());
  std::sort(sets.begin(), sets.end());
  sets.erase(std::unique(sets.begin(), sets.end()), sets.end());
  if (!minimal_only) return sets;
  std::vector<std::vector<int>> out;
  for (std::size_t a = 0; a < sets.size(); ++a) {
    bool has_subset = false;
    for (std::size_t b = 0; b < sets.size() && !has_subset; ++b)
      has_subset = a != b && sets[b].size() < sets[a].size() &&
                   std::includes(sets[a].begin(), sets[a].end(), sets[b].begin(), sets[b].end());
    if (!has_subset) out.push_back(sets[a]);
  }
  return out;
}

/// Coefficients 0..max_k of ((1+x)^m - x^m)^groups (header comment): A = sum_{i<m} C(m, i) x^i.
std::vector<BigCount> group_polynomial_power(int groups, int replicas, int max_k) {
  std::vector<BigCount> q(idx(replicas));  // q_i = C(m, i), i < m
  q[0] = 1;
  for (int i = 1; i < replicas; ++i) q[idx(i)] = q[idx(i - 1)] * (replicas - i + 1) / i;
  return polynomial_power(q, groups, max_k);
}

/// r = a + b - c modulo 2^(64 w): two carry chains (add, then subtract), which compile to
/// adc / sbb sequences on x86-64.
void add_sub_limbs(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b, const std::uint64_t* c, int w) {
  // w is a multiple of 4: four limbs per iteration keep the carry in the flags register.
#if defined(__x86_64__)
  unsigned char carry = 0;
  for (int i = 0; i < w; i += 4) {
    unsigned long long s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    carry = _addcarry_u64(carry, a[i], b[i], &s0);
    carry = _addcarry_u64(carry, a[i + 1], b[i + 1], &s1);
    carry = _addcarry_u64(carry, a[i + 2], b[i + 2], &s2);
    carry = _addcarry_u64(carry, a[i + 3], b[i + 3], &s3);
    r[i] = s0;
    r[i + 1] = s1;
    r[i + 2] = s2;
    r[i + 3] = s3;
  }
  unsigned char borrow = 0;
  for (int i = 0; i < w; i += 4) {
    unsigned long long d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    borrow = _subborrow_u64(borrow, r[i], c[i], &d0);
    borrow = _subborrow_u64(borrow, r[i + 1], c[i + 1], &d1);
    borrow = _subborrow_u64(borrow, r[i + 2], c[i + 2], &d2);
    borrow = _subborrow_u64(borrow, r[i + 3], c[i + 3], &d3);
    r[i] = d0;
    r[i + 1] = d1;
    r[i + 2] = d2;
    r[i + 3] = d3;
  }
#else
  std::uint64_t carry = 0;
  for (int i = 0; i < w; ++i) {
    const std::uint64_t s1 = a[i] + b[i];
    const std::uint64_t s2 = s1 + carry;
    carry = (s1 < a[i] ? 1 : 0) | (s2 < s1 ? 1 : 0);
    r[i] = s2;
  }
  std::uint64_t borrow = 0;
  for (int i = 0; i < w; ++i) {
    const std::uint64_t d1 = r[i] - c[i];
    const std::uint64_t b1 = r[i] < c[i] ? 1 : 0;
    const std::uint64_t d2 = d1 - borrow;
    borrow = b1 | (d1 < borrow ? 1 : 0);
    r[i] = d2;
  }
#endif
}

/// c(N-k, k) for k = 0..N-1, where c(z, k) = [x^k] (1 + ... + x^{m-1})^z (header comment).
/// Rows of fixed-stride limb arrays; each entry is computed modulo 2^(64 w) with w limbs
/// enough for its true value, which makes the wrap-around of the subtraction harmless.
std::vector<BigCount> ring_compositions(int machines, int replicas) {
  using Limb = std::uint64_t;
  const long long n = machines;
  const long long m = replicas;
  const double log2_m = std::log2(static_cast<double>(m));
  std::vector<double> lg(idx(2 * n + 2));  // lg[i] = ln((i-1)!)
  for (std::size_t i = 1; i < lg.size(); ++i) lg[i] = std::lgamma(static_cast<double>(i));
  const double inv_ln2 = 1.0 / std::log(2.0);
  const auto width = [&](long long z, long long k) -> int {
    if (k == 0) return 4;
    const double bits_binomial = (lg[idx(z + k)] - lg[idx(k + 1)] - lg[idx(z)]) * inv_ln2;
    const double bits = std::min(static_cast<double>(z) * log2_m, bits_binomial) + 3.0;
    return (static_cast<int>(bits / 64.0) + 1 + 3) / 4 * 4;  // a multiple of 4 limbs
  };
  const std::size_t stride = idx((n / 64 + 2 + 3) / 4 * 4);
  const double bytes = ring_closed_form_bytes(machines);
  if (bytes > kRingClosedFormMemoryLimit)
    throw LimitError(fmt::format("ring closed form for {} machines needs {:.1f} GiB, above the {:.0f} GiB limit", machines,
                                 bytes / kGiB, kRingClosedFormMemoryLimit / kGiB));
  // Temporal blocking: rows z0+1 .. z0+B are computed together, k outermost, so that a row
  // reads the entries k and k-m of the row above while they are still in cache. Rows inside a
  // block keep only a cyclic window of m+1 entries; the block's last row is written in full
  // and feeds the next block. Memory traffic drops by a factor B against row-at-a-time.
  constexpr long long kBlock = 32;
  const long long window = std::min(m + 1, n + 1);
  struct RowBuffer {
    Limb* base;
    int* widths;      // limbs possibly non-zero in each slot
    long long slots;  // entry k lives in slot k % slots
  };
  std::vector<Limb> full_in(idx(n + 1) * stride, 0), full_out(idx(n + 1) * stride, 0);
  std::vector<int> in_w(idx(n + 1), 0), out_w(idx(n + 1), 0);
  std::vector<Limb> windows(idx(kBlock * window) * stride, 0);
  std::vector<int> window_w(idx(kBlock * window), 0);
  const std::vector<Limb> zero(stride, 0);
  std::vector<BigCount> out(idx(n));
  full_in[0] = 1;  // row z = 0: c(0, 0) = 1
  in_w[0] = 1;
  long long in_last = 0;  // last index of the row held in full_in
  std::vector<RowBuffer> rows;
  std::vector<long long> last;
  for (long long z0 = 0; z0 < n; z0 += kBlock) {
    const long long count = std::min(kBlock, n - z0);
    rows.clear();
    last.clear();
    long long k_max = 0;
    for (long long r = 0; r < count; ++r) {
      const long long z = z0 + 1 + r;
      if (r + 1 < count)
        rows.push_back({&windows[idx(r * window) * stride], &window_w[idx(r * window)], window});
      else
        rows.push_back({full_out.data(), out_w.data(), n + 1});
      last.push_back(std::min(n - z, z * (m - 1)));
      k_max = std::max(k_max, last.back());
    }
    const RowBuffer input{full_in.data(), in_w.data(), n + 1};
    for (long long k = 0; k <= k_max; ++k) {
      for (long long r = 0; r < count; ++r) {
        if (k > last[idx(r)]) continue;
        const long long z = z0 + 1 + r;
        const RowBuffer& self = rows[idx(r)];
        const RowBuffer& above = r == 0 ? input : rows[idx(r - 1)];
        const long long above_last = r == 0 ? in_last : last[idx(r - 1)];
        const auto at = [&](const RowBuffer& row, long long j) { return row.base + idx(j % row.slots) * stride; };
        const int w = width(z, k);
        const Limb* a = k >= 1 ? at(self, k - 1) : zero.data();
        const Limb* b = k <= above_last ? at(above, k) : zero.data();
        const Limb* c = (k >= m && k - m <= above_last) ? at(above, k - m) : zero.data();
        Limb* res = at(self, k);
        add_sub_limbs(res, a, b, c, w);
        int& slot_width = self.widths[idx(k % self.slots)];
        for (int i = w; i < slot_width; ++i) res[i] = 0;  // clear what an older entry left
        slot_width = w;
        if (k == n - z) boost::multiprecision::import_bits(out[idx(k)], res, res + w, 64, false);
      }
    }
    std::swap(full_in, full_out);
    std::swap(in_w, out_w);
    in_last = last.back();
  }
  return out;
}

std::uint64_t bit_mask(const std::vector<int>& members) {
  std::uint64_t mask = 0;
  for (int x : members) mask |= std::uint64_t{1} << x;
  return mask;
}

/// Depth-first walk over every subset T of the holder sets (each subset visited once, sets
/// added in increasing index order), accumulating (-1)^|T| by the size of the union of T.
struct SubsetWalk {
  const std::vector<std::vector<std::uint64_t>>& bits;
  std::size_t words;
  std::vector<long long>& net;

  void visit(std::size_t next, const std::vector<std::uint64_t>& uni, int depth) {
    int size = 0;
    for (auto w : uni) size += std::popcount(w);
    net[idx(size)] += depth % 2 == 0 ? 1 : -1;
    std::vector<std::uint64_t> grown(words);
    for (std::size_t s = next; s < bits.size(); ++s) {
      for (std::size_t w = 0; w < words; ++w) grown[w] = uni[w] | bits[s][w];
      visit(s + 1, grown, depth + 1);
    }
  }
};

void check_exact_placement(const Placement& p) {
  if (p.machines < 1 || static_cast<int>(p.holders.size()) != p.machines)
    throw ModelError("placement", fmt::format("placement \"{}\" has {} holder sets for {} machines", p.scheme,
                                              p.holders.size(), p.machines));
  for (const auto& h : p.holders)
    if (h.empty()) throw ModelError("placement", fmt::format("placement \"{}\" has an empty holder set", p.scheme));
}

/// prod_{j < s} (k - j) / (N - j) = C(N-s, k-s) / C(N, k): probability that s given machines all
/// fail among k uniform failures (relative error below 2 s u).
double all_fail_probability(int machines, int k, int s) {
  if (k < s) return 0.0;
  double r = 1.0;
  for (int j = 0; j < s; ++j) r *= static_cast<double>(k - j) / static_cast<double>(machines - j);
  return r;
}

}  // namespace

std::string to_string(RecoveryMethod method) {
  switch (method) {
    case RecoveryMethod::group_closed_form: return "exact: group closed form";
    case RecoveryMethod::ring_closed_form: return "exact: ring closed form";
    case RecoveryMethod::mixed_convolution: return "exact: group x ring convolution";
    case RecoveryMethod::inclusion_exclusion: return "exact: inclusion-exclusion";
    case RecoveryMethod::enumeration: return "exact: enumeration";
    case RecoveryMethod::components: return "exact: convolution over components";
  }
  return "unknown";
}

std::vector<BigCount> binomial_row(int n) {
  std::vector<BigCount> row(idx(n) + 1);
  row[0] = 1;
  for (int k = 0; k < n; ++k) row[idx(k) + 1] = row[idx(k)] * (n - k) / (k + 1);
  return row;
}

double ratio_to_double(const BigCount& a, const BigCount& b) {
  if (a.is_zero()) return 0.0;
  const TopBits ta = top_bits(a);
  const TopBits tb = top_bits(b);
  const long long e = ta.exponent - tb.exponent;
  if (e < std::numeric_limits<int>::min() / 2) return 0.0;
  if (e > std::numeric_limits<int>::max() / 2) return std::numeric_limits<double>::infinity();
  return std::ldexp(ta.mantissa / tb.mantissa, static_cast<int>(e));
}

double log10_ratio(const BigCount& a, const BigCount& b) {
  if (a.is_zero()) return -std::numeric_limits<double>::infinity();
  const TopBits ta = top_bits(a);
  const TopBits tb = top_bits(b);
  return std::log10(ta.mantissa / tb.mantissa) +
         static_cast<double>(ta.exponent - tb.exponent) * 0.30102999566398119521;
}

double log_big(const BigCount& a) {
  const TopBits t = top_bits(a);
  return std::log(t.mantissa) + static_cast<double>(t.exponent) * 0.69314718055994530942;
}

RecoveryCounts group_recovery_counts(int machines, int replicas) {
  const Placement check = group_placement(machines, replicas);  // validates m | N
  RecoveryCounts out;
  out.machines = machines;
  out.method = RecoveryMethod::group_closed_form;
  out.recoverable = group_polynomial_power(machines / replicas, replicas, machines);
  return out;
}

RecoveryCounts ring_recovery_counts(int machines, int replicas) {
  const Placement check = ring_placement(machines, replicas);  // validates the counts
  RecoveryCounts out;
  out.machines = machines;
  out.method = RecoveryMethod::ring_closed_form;
  std::vector<BigCount> c = ring_compositions(machines, replicas);
  out.recoverable.resize(idx(machines) + 1);
  for (int k = 0; k < machines; ++k)
    out.recoverable[idx(k)] = c[idx(k)] * machines / (machines - k);  // exact: (N-k) G_k = N c
  out.recoverable[idx(machines)] = 0;
  return out;
}

RecoveryCounts mixed_recovery_counts(int machines, int replicas) {
  const Placement check = mixed_placement(machines, replicas);
  if (machines % replicas == 0) {
    RecoveryCounts out = group_recovery_counts(machines, replicas);
    out.method = RecoveryMethod::mixed_convolution;
    return out;
  }
  const int groups = machines / replicas - 1;
  const int rest = machines - groups * replicas;
  const std::vector<BigCount> g = group_polynomial_power(groups, replicas, groups * (replicas - 1));
  const RecoveryCounts r = ring_recovery_counts(rest, replicas);
  RecoveryCounts out;
  out.machines = machines;
  out.method = RecoveryMethod::mixed_convolution;
  out.recoverable.assign(idx(machines) + 1, BigCount(0));
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (g[i].is_zero()) continue;
    for (std::size_t j = 0; j < r.recoverable.size(); ++j)
      if (!r.recoverable[j].is_zero()) out.recoverable[i + j] += g[i] * r.recoverable[j];
  }
  return out;
}

RecoveryCounts inclusion_exclusion_recovery_counts(const Placement& placement) {
  check_exact_placement(placement);
  const int n = placement.machines;
  const auto sets = distinct_sets(placement, true);
  const int d = static_cast<int>(sets.size());
  if (d > kMaxExactSets)
    throw LimitError(fmt::format("inclusion-exclusion over {} distinct holder sets: at most {}", d, kMaxExactSets));
  const std::size_t words = idx(n / 64 + 1);
  std::vector<std::vector<std::uint64_t>> bits(sets.size(), std::vector<std::uint64_t>(words, 0));
  for (std::size_t s = 0; s < sets.size(); ++s)
    for (int x : sets[s]) bits[s][idx(x / 64)] |= std::uint64_t{1} << (x % 64);
  // net[u] = sum over subsets T with |union T| = u of (-1)^|T|.
  std::vector<long long> net(idx(n) + 1, 0);
  SubsetWalk walk{bits, words, net};
  walk.visit(0, std::vector<std::uint64_t>(words, 0), 0);
  RecoveryCounts out;
  out.machines = n;
  out.method = RecoveryMethod::inclusion_exclusion;
  out.recoverable.assign(idx(n) + 1, BigCount(0));
  for (int u = 0; u <= n; ++u) {
    if (net[idx(u)] == 0) continue;
    const auto row = binomial_row(n - u);  // C(N-u, k-u)
    for (int k = u; k <= n; ++k) out.recoverable[idx(k)] += net[idx(u)] * row[idx(k - u)];
  }
  return out;
}

RecoveryCounts enumerate_recovery_counts(const Placement& placement) {
  check_exact_placement(placement);
  const int n = placement.machines;
  if (n > kMaxEnumerationMachines)
    throw LimitError(fmt::format("enumeration over {} machines: at most {}", n, kMaxEnumerationMachines));
  std::vector<std::uint64_t> masks;
  for (const auto& h : placement.holders) masks.push_back(bit_mask(h));
  std::vector<long long> count(idx(n) + 1, 0);
  const std::uint64_t all = std::uint64_t{1} << n;
  for (std::uint64_t failed = 0; failed < all; ++failed) {
    bool lost = false;
    for (std::uint64_t h : masks)
      if ((h & failed) == h) {
        lost = true;
        break;
      }
    if (!lost) ++count[idx(std::popcount(failed))];
  }
  RecoveryCounts out;
  out.machines = n;
  out.method = RecoveryMethod::enumeration;
  for (long long c : count) out.recoverable.emplace_back(c);
  return out;
}

namespace {

/// Exact counts of one connected component (machines relabelled 0..c-1), or nullopt.
std::optional<RecoveryCounts> component_counts(const Placement& sub) {
  const int c = sub.machines;
  const auto sets = distinct_sets(sub, true);
  const bool pairs = std::all_of(sets.begin(), sets.end(), [](const auto& s) { return s.size() == 2; });
  if (pairs && c == 2) return ring_recovery_counts(2, 2);
  if (pairs && static_cast<int>(sets.size()) == c && ring_closed_form_bytes(c) <= kRingClosedFormMemoryLimit) {
    std::vector<int> degree(idx(c), 0);
    for (const auto& s : sets)
      for (int x : s) ++degree[idx(x)];
    // Connected, c vertices, c edges, every degree 2: a single cycle.
    if (std::all_of(degree.begin(), degree.end(), [](int d) { return d == 2; })) return ring_recovery_counts(c, 2);
  }
  if (static_cast<int>(sets.size()) <= kMaxExactSets) return inclusion_exclusion_recovery_counts(sub);
  if (c <= kMaxEnumerationMachines) return enumerate_recovery_counts(sub);
  return std::nullopt;
}

}  // namespace

std::vector<BigCount> polynomial_power(const std::vector<BigCount>& a, int power, int last) {
  if (a.empty() || a.front() != 1) throw std::logic_error("polynomial_power: the constant coefficient must be 1");
  const int deg = static_cast<int>(a.size()) - 1;
  std::vector<BigCount> p(idx(std::max(0, last)) + 1, BigCount(0));
  p[0] = 1;
  const long long top = std::min<long long>(last, static_cast<long long>(power) * deg);
  for (long long k = 1; k <= top; ++k) {
    BigCount acc = 0;
    for (long long i = 1; i <= std::min<long long>(k, deg); ++i) {
      const long long coef = static_cast<long long>(power + 1) * i - k;
      if (coef != 0 && !a[idx(i)].is_zero() && !p[idx(k - i)].is_zero()) acc += coef * a[idx(i)] * p[idx(k - i)];
    }
    p[idx(k)] = acc / k;  // exact: k divides the sum
  }
  return p;
}

std::vector<BigCount> multiply_counts(const std::vector<BigCount>& a, const std::vector<BigCount>& b) {
  if (a.empty() || b.empty()) return {};
  std::vector<BigCount> out(a.size() + b.size() - 1, BigCount(0));
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].is_zero()) continue;
    for (std::size_t j = 0; j < b.size(); ++j)
      if (!b[j].is_zero()) out[i + j] += a[i] * b[j];
  }
  return out;
}

std::vector<std::vector<int>> linked_components(int n, const std::vector<std::vector<int>>& sets) {
  std::vector<int> parent(idx(std::max(0, n)));
  for (int i = 0; i < n; ++i) parent[idx(i)] = i;
  const auto root = [&](int x) {
    while (parent[idx(x)] != x) {
      parent[idx(x)] = parent[idx(parent[idx(x)])];
      x = parent[idx(x)];
    }
    return x;
  };
  for (const auto& s : sets) {
    if (s.empty()) continue;
    for (int x : s) parent[idx(root(x))] = root(s.front());
  }
  std::vector<std::vector<int>> by_root(idx(std::max(0, n)));
  for (int i = 0; i < n; ++i) by_root[idx(root(i))].push_back(i);
  std::vector<std::vector<int>> out;
  for (auto& c : by_root)
    if (!c.empty()) out.push_back(std::move(c));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  return out;
}

std::optional<RecoveryCounts> exact_recovery_counts(const Placement& placement) {
  check_exact_placement(placement);
  const int n = placement.machines;
  const int m = placement.replicas;
  bool uniform = m >= 1 && m <= n;
  for (const auto& h : placement.holders) uniform = uniform && static_cast<int>(h.size()) == m;
  if (uniform) {
    if (n % m == 0 && group_placement(n, m).holders == placement.holders) return group_recovery_counts(n, m);
    if (ring_placement(n, m).holders == placement.holders) {
      if (ring_closed_form_bytes(n) > kRingClosedFormMemoryLimit) return std::nullopt;  // Monte Carlo instead
      return ring_recovery_counts(n, m);
    }
    if (n % m != 0 && mixed_placement(n, m).holders == placement.holders) return mixed_recovery_counts(n, m);
  }
  // Connected components of the machines linked by the holder sets.
  const std::vector<std::vector<int>> components = linked_components(n, placement.holders);
  std::vector<int> local(idx(n), 0);  // machine -> index inside its component
  RecoveryCounts total;
  total.machines = n;
  total.recoverable = {BigCount(1)};
  const auto component_count = components.size();
  for (const auto& comp : components) {
    for (std::size_t j = 0; j < comp.size(); ++j) local[idx(comp[j])] = static_cast<int>(j);
    Placement sub;
    sub.scheme = placement.scheme;
    sub.machines = static_cast<int>(comp.size());
    sub.replicas = placement.replicas;
    for (int x : comp) {
      std::vector<int> h;
      for (int y : placement.holders[idx(x)]) h.push_back(local[idx(y)]);
      std::sort(h.begin(), h.end());
      sub.holders.push_back(std::move(h));
    }
    auto part = component_counts(sub);
    if (!part) return std::nullopt;
    total.method = part->method;
    total.recoverable = multiply_counts(total.recoverable, part->recoverable);
  }
  if (component_count > 1) total.method = RecoveryMethod::components;
  return total;
}

std::vector<double> union_bound_curve(const Placement& placement) {
  const int n = placement.machines;
  std::map<int, int> sets_by_size;
  for (const auto& s : distinct_sets(placement, false)) ++sets_by_size[static_cast<int>(s.size())];
  std::vector<double> out(idx(n) + 1);
  for (int k = 0; k <= n; ++k) {
    double sum = 0;
    for (const auto& [size, count] : sets_by_size) sum += count * all_fail_probability(n, k, size);
    out[idx(k)] = std::max(0.0, 1.0 - sum);
  }
  return out;
}

std::vector<double> expected_lost_checkpoints_curve(const Placement& placement) {
  const int n = placement.machines;
  std::map<int, int> holders_by_size;
  for (const auto& h : placement.holders) ++holders_by_size[static_cast<int>(h.size())];
  std::vector<double> out(idx(n) + 1);
  for (int k = 0; k <= n; ++k) {
    double sum = 0;
    for (const auto& [size, count] : holders_by_size) sum += count * all_fail_probability(n, k, size);
    out[idx(k)] = sum;
  }
  return out;
}

RecoveryCurve recovery_curve(const RecoveryCounts& counts, const Placement& placement) {
  const int n = counts.machines;
  if (placement.machines != n || static_cast<int>(counts.recoverable.size()) != n + 1)
    throw std::logic_error("recovery_curve: counts and placement disagree on the machine count");
  const auto binomials = binomial_row(n);
  RecoveryCurve c;
  c.machines = n;
  c.method = to_string(counts.method);
  for (int k = 0; k <= n; ++k) {
    const BigCount& g = counts.recoverable[idx(k)];
    const BigCount& total = binomials[idx(k)];
    c.probability.push_back(ratio_to_double(g, total));
    c.failure_probability.push_back(ratio_to_double(total - g, total));
    c.log10_probability.push_back(log10_ratio(g, total));
    c.expected_storage_machines.push_back(n * c.failure_probability.back());
  }
  c.union_bound = union_bound_curve(placement);
  c.expected_lost_checkpoints = expected_lost_checkpoints_curve(placement);
  return c;
}

Interval wilson_interval(std::size_t successes, std::size_t trials, double z) {
  if (trials == 0) return {0.0, 1.0};
  const double n = static_cast<double>(trials);
  const double phat = static_cast<double>(successes) / n;
  const double z2 = z * z;
  const double denom = 1.0 + z2 / n;
  const double centre = (phat + z2 / (2 * n)) / denom;
  const double half = z / denom * std::sqrt(phat * (1 - phat) / n + z2 / (4 * n * n));
  return {successes == 0 ? 0.0 : std::max(0.0, centre - half), successes == trials ? 1.0 : std::min(1.0, centre + half)};
}

namespace {

/// P_k = Pr[T > k] for k = 0..last from the histogram of T (the number of failures at which a
/// checkpoint is first lost), with Wilson intervals.
MonteCarloRecovery curve_from_first_loss(const std::vector<long long>& first_loss, std::size_t samples, int last) {
  MonteCarloRecovery out;
  out.samples = samples;
  std::size_t above = samples;  // samples with T > k, starting at k = 0 (T >= 1 always)
  for (int k = 0; k <= last; ++k) {
    above -= static_cast<std::size_t>(first_loss[idx(k)]);
    const double phat = samples == 0 ? 0.0 : static_cast<double>(above) / static_cast<double>(samples);
    const Interval ci = wilson_interval(above, samples);
    out.probability.push_back(phat);
    out.ci95_low.push_back(ci.low);
    out.ci95_high.push_back(ci.high);
  }
  return out;
}

}  // namespace

MonteCarloRecovery monte_carlo_recovery(const Placement& placement, std::size_t samples, std::uint64_t seed) {
  check_exact_placement(placement);
  const int n = placement.machines;
  RandomEngine engine = make_stream(seed, 0, RandomComponent::analysis);
  // Failure order by iid random keys: the top 64-b bits of each key are random, the low b bits
  // hold the machine index (2^b >= N), so keys are distinct and ties of the random part are
  // broken by index. The first k machines of the order are the k smallest keys.
  int index_bits = 1;
  while ((std::uint64_t{1} << index_bits) < static_cast<std::uint64_t>(n)) ++index_bits;
  const std::uint64_t index_mask = (std::uint64_t{1} << index_bits) - 1;
  std::vector<std::uint64_t> key(idx(n));
  std::vector<long long> first_loss(idx(n) + 2, 0);  // histogram of T
  std::vector<int> members;                           // holder sets, flattened
  std::vector<std::size_t> starts{0};
  for (const auto& h : placement.holders) {
    members.insert(members.end(), h.begin(), h.end());
    starts.push_back(members.size());
  }
  for (std::size_t s = 0; s < samples; ++s) {
    for (int x = 0; x < n; ++x) key[idx(x)] = (engine() & ~index_mask) | static_cast<std::uint64_t>(x);
    // The holder set lost first: minimise, over sets, the largest key of its members.
    std::uint64_t first = std::numeric_limits<std::uint64_t>::max();
    for (std::size_t set = 0; set + 1 < starts.size(); ++set) {
      std::uint64_t last_key = 0;
      for (std::size_t e = starts[set]; e < starts[set + 1]; ++e) last_key = std::max(last_key, key[idx(members[e])]);
      first = std::min(first, last_key);
    }
    // T = rank of that key (1-based): machines failing no later than it.
    int t = 0;
    for (int x = 0; x < n; ++x) t += key[idx(x)] <= first ? 1 : 0;
    ++first_loss[idx(t)];
  }
  return curve_from_first_loss(first_loss, samples, n);
}

MonteCarloRecovery monte_carlo_recovery_first(const Placement& placement, std::size_t samples, std::uint64_t seed,
                                              int max_failures) {
  check_exact_placement(placement);
  const int n = placement.machines;
  const int last = std::clamp(max_failures, 0, n);
  RandomEngine engine = make_stream(seed, 0, RandomComponent::analysis);
  const auto sets_of = placement.stored_on();  // sets_of[x]: machines i whose holder set contains x
  std::vector<int> order(idx(n));
  for (int x = 0; x < n; ++x) order[idx(x)] = x;
  std::vector<char> failed(idx(n), 0);
  std::vector<long long> first_loss(idx(n) + 2, 0);
  for (std::size_t s = 0; s < samples; ++s) {
    // The first `last` machines of a uniform random order (partial Fisher-Yates); T = the
    // position at which some holder set has failed entirely, last + 1 when none has.
    int t = last + 1;
    for (int j = 0; j < last && t > last; ++j) {
      const int pick = boost::random::uniform_int_distribution<int>(j, n - 1)(engine);
      std::swap(order[idx(j)], order[idx(pick)]);
      const int x = order[idx(j)];
      failed[idx(x)] = 1;
      for (int owner : sets_of[idx(x)]) {
        const auto& h = placement.holders[idx(owner)];
        if (std::all_of(h.begin(), h.end(), [&](int y) { return failed[idx(y)] != 0; })) t = j + 1;
      }
    }
    for (int j = 0; j < last; ++j) failed[idx(order[idx(j)])] = 0;  // only the first `last` can be set
    ++first_loss[idx(t)];
  }
  return curve_from_first_loss(first_loss, samples, last);
}

WindowRecovery window_recovery_monte_carlo(const MonteCarloRecovery& mc, const Placement& placement, double p) {
  if (!(p >= 0.0 && p <= 1.0))
    throw ModelError("window probability p", fmt::format("a per-machine failure probability in [0, 1], found {}", p));
  const int n = placement.machines;
  if (static_cast<int>(mc.probability.size()) != n + 1)
    throw std::logic_error("window_recovery_monte_carlo: the estimates must cover k = 0..N");
  WindowRecovery w;
  w.failure_probability_per_machine = p;
  for (int k = 0; k <= n; ++k) w.probability += binomial_weight(n, k, p) * mc.probability[idx(k)];
  w.failure_probability = 1.0 - w.probability;
  w.expected_storage_machines = n * w.failure_probability;
  for (const auto& h : placement.holders) w.expected_lost_checkpoints += std::pow(p, static_cast<double>(h.size()));
  w.relative_error_bound = std::numeric_limits<double>::quiet_NaN();  // Monte Carlo: no bound
  return w;
}

double binomial_weight(int n, int k, double p) {
  if (p == 0.0) return k == 0 ? 1.0 : 0.0;
  if (p == 1.0) return k == n ? 1.0 : 0.0;
  const double log_c = std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
  return std::exp(log_c + k * std::log(p) + (n - k) * std::log1p(-p));
}

double ring_closed_form_bytes(int machines) {
  const double limbs_per_entry = static_cast<double>((machines / 64 + 2 + 3) / 4 * 4);
  return 2.0 * (machines + 1.0) * limbs_per_entry * sizeof(std::uint64_t);
}

WindowRecovery window_recovery(const RecoveryCounts& counts, const Placement& placement, double p) {
  if (!(p >= 0.0 && p <= 1.0))
    throw ModelError("window probability p", fmt::format("a per-machine failure probability in [0, 1], found {}", p));
  const int n = counts.machines;
  const auto binomials = binomial_row(n);
  WindowRecovery w;
  w.failure_probability_per_machine = p;
  for (const auto& h : placement.holders) w.expected_lost_checkpoints += std::pow(p, static_cast<double>(h.size()));
  if (p == 0.0 || p == 1.0) {
    const int k = p == 0.0 ? 0 : n;  // every machine survives, or every machine fails
    w.probability = ratio_to_double(counts.recoverable[idx(k)], binomials[idx(k)]);
    w.failure_probability = ratio_to_double(binomials[idx(k)] - counts.recoverable[idx(k)], binomials[idx(k)]);
  } else {
    const double ln_p = std::log(p);
    const double ln_q = std::log1p(-p);
    double max_ln_binomial = 0;
    for (int k = 0; k <= n; ++k) {
      const double weight = k * ln_p + (n - k) * ln_q;
      const BigCount& g = counts.recoverable[idx(k)];
      const BigCount lost = binomials[idx(k)] - g;
      if (!g.is_zero()) w.probability += std::exp(log_big(g) + weight);
      if (!lost.is_zero()) w.failure_probability += std::exp(log_big(lost) + weight);
      max_ln_binomial = std::max(max_ln_binomial, log_big(binomials[idx(k)]));
    }
    const double u = std::ldexp(1.0, -53);
    w.relative_error_bound = 4 * u * (n * (std::abs(ln_p) + std::abs(ln_q)) + max_ln_binomial + n);
  }
  w.expected_storage_machines = n * w.failure_probability;
  return w;
}

}  // namespace ckptsim
