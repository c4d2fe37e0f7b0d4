#include "simgrid_flows.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <simgrid/s4u.hpp>
#include <xbt/log.h>

namespace ckptsim::cross_check {

namespace {

// Number of identical unit streams a flow stands for (its one whole weight).
int streams_of(const CrossFlow& flow) {
  const double w = flow.uses.empty() ? 1.0 : flow.uses.front().weight;
  for (const ResourceUse& u : flow.uses) {
    if (u.weight != w || w < 1.0 || w != std::floor(w)) {
      throw std::invalid_argument("run_simgrid: a flow's weights must be one whole number on all its resources");
    }
  }
  return static_cast<int>(w);
}

void write_all(int fd, const void* data, std::size_t bytes) {
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, bytes);
    if (n <= 0) std::_Exit(3);
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

// "r12", "f7": built by appending (operator+ on a literal trips GCC 12's -Wrestrict).
std::string numbered(char prefix, std::size_t i) {
  std::string name(1, prefix);
  name += std::to_string(i);
  return name;
}

bool read_all(int fd, void* data, std::size_t bytes) {
  auto* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::read(fd, p, bytes);
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

// The child: one SimGrid engine, the platform of the header comment, one driver actor.
void simulate(const CrossFlowSet& set, int fd) {
  namespace s4u = simgrid::s4u;
  xbt_log_control_set("root.thresh:critical");
  int argc = 1;
  char program[] = "ckptsim-simgrid-cross-check";
  char* argv[] = {program, nullptr};
  s4u::Engine engine(&argc, argv);
  s4u::Engine::set_config("network/model:CM02");
  s4u::Engine::set_config("network/crosstraffic:0");
  s4u::Engine::set_config("contexts/stack-size:256");  // KiB per actor: thousands of flow actors
  const auto start = std::chrono::steady_clock::now();

  auto* zone = s4u::create_star_zone("flows");
  std::vector<s4u::Link*> links;
  for (std::size_t r = 0; r < set.capacities.size(); ++r) {
    links.push_back(zone->create_link(numbered('r', r), set.capacities[r])->set_latency(0)->seal());
  }
  s4u::Host* sink = zone->create_host("sink", 1e9)->seal();
  const std::size_t n = set.flows.size();
  std::vector<s4u::Host*> sources;
  std::vector<int> streams;
  for (std::size_t f = 0; f < n; ++f) {
    s4u::Host* host = zone->create_host(numbered('f', f), 1e9)->seal();
    std::vector<s4u::LinkInRoute> route;
    for (const ResourceUse& u : set.flows[f].uses) route.emplace_back(links[static_cast<std::size_t>(u.resource)]);
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, route, false);
    sources.push_back(host);
    streams.push_back(streams_of(set.flows[f]));
  }
  zone->seal();

  // One actor per flow, on its source host: it waits for the arrival, starts the flow's
  // streams and records the clock once the last of them is done.
  std::vector<double> completion(n, 0.0);
  for (std::size_t f = 0; f < n; ++f) {
    s4u::Actor::create("flow", sources[f], [&set, &completion, &sources, &streams, sink, f] {
      const double at = set.flows[f].arrival.seconds();
      if (at > s4u::Engine::get_clock()) s4u::this_actor::sleep_until(at);
      std::vector<s4u::CommPtr> comms;
      for (int k = 0; k < streams[f]; ++k) {
        comms.push_back(s4u::Comm::sendto_async(sources[f], sink, static_cast<std::uint64_t>(set.flows[f].bytes)));
      }
      s4u::Comm::wait_all(comms);
      completion[f] = s4u::Engine::get_clock();
    });
  }
  engine.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_all(fd, &wall, sizeof wall);
  write_all(fd, completion.data(), n * sizeof(double));
}

}  // namespace

SimGridRun run_simgrid(const CrossFlowSet& set) {
  for (const CrossFlow& f : set.flows) (void)streams_of(f);  // reject before forking
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw std::runtime_error("run_simgrid: pipe failed");
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("run_simgrid: fork failed");
  if (child == 0) {
    ::close(pipe_fds[0]);
    try {
      simulate(set, pipe_fds[1]);
    } catch (...) {
      std::_Exit(2);
    }
    ::close(pipe_fds[1]);
    std::_Exit(0);
  }
  ::close(pipe_fds[1]);
  SimGridRun run;
  run.completion.resize(set.flows.size());
  const bool ok = read_all(pipe_fds[0], &run.wall_seconds, sizeof run.wall_seconds) &&
                  read_all(pipe_fds[0], run.completion.data(), run.completion.size() * sizeof(double));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("run_simgrid: the SimGrid child process failed (status " + std::to_string(status) + ")");
  }
  return run;
}

}  // namespace ckptsim::cross_check
