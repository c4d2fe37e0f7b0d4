#pragma once
// `ckptsim placement --domain-size S`: exact probability of recovering from CPU memory when whole
// domains (racks) of S consecutive machines fail (analysis/domain_recovery.hpp), for each placement
// plus the domain-aware group placement "group-spread". Private to the CLI.
#include <optional>
#include <string>
#include <vector>

#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/cli/commands.hpp"

namespace ckptsim::cli {

struct DomainTableRequest {
  int machines = 0;
  int replicas = 0;
  int domain_size = 1;
  int j_first = 0;
  int j_last = -1;   ///< -1: up to min(domains, 8)
  bool json = false;
  std::vector<std::pair<std::string, std::optional<Placement>>> placements;  ///< name, placement or none
};

void print_domain_failures(const CommandContext& ctx, const DomainTableRequest& request);

}  // namespace ckptsim::cli
