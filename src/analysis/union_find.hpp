// Root of x in a union-find forest (path halving): shared by the exact recovery counts of
// recovery_probability.cpp and domain_recovery.cpp, which both split holder sets into
// independent components. One definition, so the two files may share a unity file.
#pragma once

#include <cstddef>
#include <vector>

namespace ckptsim::detail {

inline int union_find_root(std::vector<int>& parent, int x) {
  while (parent[static_cast<std::size_t>(x)] != x) {
    parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    x = parent[static_cast<std::size_t>(x)];
  }
  return x;
}

}  // namespace ckptsim::detail
