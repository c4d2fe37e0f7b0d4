#include "ckptsim/network/topology.hpp"

#include <algorithm>
#include <deque>
#include <stdexcept>

#include <boost/graph/adjacency_list.hpp>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

struct Topology::Graph {
  struct Link {
    int resource = 0;  ///< the link's index in resources()
  };
  using Type = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, Link>;
  explicit Graph(std::size_t vertices) : g(vertices) {}
  Type g;
};

Topology Topology::build(const ClusterSpec& cluster) {
  if (cluster.machines < 1) throw ModelError("/cluster/machines", "the network topology needs at least 1 machine");
  if (cluster.network_bandwidth <= 0)
    throw ModelError("/cluster/network_bandwidth", "the network topology needs a positive bandwidth");
  Topology t;
  t.kind_ = cluster.network.topology;
  t.machines_ = cluster.machines;
  const int n = cluster.machines;
  const double b = cluster.network_bandwidth;
  // Intra-node paths fall back to the network bandwidth only when the scenario leaves them out
  // (a machine without NVLink data still needs a finite port to move bytes through).
  const double nvl = cluster.nvlink_bandwidth > 0 ? cluster.nvlink_bandwidth : b;
  const double pcie = cluster.gpu_cpu_bandwidth > 0 ? cluster.gpu_cpu_bandwidth : b;
  t.machine_base_ = 0;
  for (int i = 0; i < n; ++i) {
    t.resources_.push_back({ResourceKind::nic_send, i, b});
    t.resources_.push_back({ResourceKind::nic_recv, i, b});
    t.resources_.push_back({ResourceKind::nvlink, i, nvl});
    t.resources_.push_back({ResourceKind::pcie, i, pcie});
  }
  switch (t.kind_) {
  case NetworkTopology::single_switch: {
    t.leaves_ = 1;
    t.machines_per_leaf_ = n;
    auto graph = std::make_shared<Graph>(static_cast<std::size_t>(n + 1));
    for (int i = 0; i < n; ++i) {
      boost::add_edge(static_cast<std::size_t>(i), static_cast<std::size_t>(n), Graph::Link{t.nic_send(i)}, graph->g);
      boost::add_edge(static_cast<std::size_t>(n), static_cast<std::size_t>(i), Graph::Link{t.nic_recv(i)}, graph->g);
    }
    t.graph_ = std::move(graph);
    break;
  }
  case NetworkTopology::leaf_spine:
  case NetworkTopology::fat_tree: {
    const int per_leaf = cluster.network.machines_per_leaf;
    if (per_leaf < 1) throw ModelError("/cluster/network/machines_per_leaf", "a leaf-spine or fat-tree network needs at least 1");
    if (cluster.network.oversubscription < 1.0)
      throw ModelError("/cluster/network/oversubscription", "a leaf-spine or fat-tree network needs a ratio of at least 1");
    const bool pods = t.kind_ == NetworkTopology::fat_tree;
    const int per_pod = pods ? cluster.network.leaves_per_pod : 0;
    if (pods && per_pod < 1) throw ModelError("/cluster/network/leaves_per_pod", "a fat-tree network needs at least 1");
    if (pods && cluster.network.pod_oversubscription < 1.0)
      throw ModelError("/cluster/network/pod_oversubscription", "a fat-tree network needs a ratio of at least 1");
    t.machines_per_leaf_ = per_leaf;
    t.leaves_ = (n + per_leaf - 1) / per_leaf;
    const int pod_count = pods ? (t.leaves_ + per_pod - 1) / per_pod : 1;
    // Vertices: machines, leaves, one spine per pod (leaf-spine: one), then the core (fat-tree).
    const int spine0 = n + t.leaves_;
    const int core = spine0 + pod_count;
    auto graph = std::make_shared<Graph>(static_cast<std::size_t>(core + (pods ? 1 : 0)));
    for (int l = 0; l < t.leaves_; ++l) {
      const int on_leaf = std::min(per_leaf, n - l * per_leaf);
      const double up = on_leaf * b / cluster.network.oversubscription;
      const int up_id = static_cast<int>(t.resources_.size());
      const int spine = spine0 + (pods ? l / per_pod : 0);
      t.resources_.push_back({ResourceKind::leaf_up, l, up});
      t.resources_.push_back({ResourceKind::leaf_down, l, up});
      boost::add_edge(static_cast<std::size_t>(n + l), static_cast<std::size_t>(spine), Graph::Link{up_id}, graph->g);
      boost::add_edge(static_cast<std::size_t>(spine), static_cast<std::size_t>(n + l), Graph::Link{up_id + 1}, graph->g);
    }
    for (int p = 0; pods && p < pod_count; ++p) {
      const int in_pod = std::min(per_pod * per_leaf, n - p * per_pod * per_leaf);
      const double up = in_pod * b / (cluster.network.oversubscription * cluster.network.pod_oversubscription);
      const int up_id = static_cast<int>(t.resources_.size());
      t.resources_.push_back({ResourceKind::pod_up, p, up});
      t.resources_.push_back({ResourceKind::pod_down, p, up});
      boost::add_edge(static_cast<std::size_t>(spine0 + p), static_cast<std::size_t>(core), Graph::Link{up_id}, graph->g);
      boost::add_edge(static_cast<std::size_t>(core), static_cast<std::size_t>(spine0 + p), Graph::Link{up_id + 1}, graph->g);
    }
    for (int i = 0; i < n; ++i) {
      const auto leaf = static_cast<std::size_t>(n + t.leaf_of(i));
      boost::add_edge(static_cast<std::size_t>(i), leaf, Graph::Link{t.nic_send(i)}, graph->g);
      boost::add_edge(leaf, static_cast<std::size_t>(i), Graph::Link{t.nic_recv(i)}, graph->g);
    }
    t.graph_ = std::move(graph);
    break;
  }
  }
  for (const Resource& r : t.resources_) t.capacities_.push_back(r.capacity);
  return t;
}

double ring_tier_factor(const NetworkSpec& net, std::int64_t span) {
  if (net.topology == NetworkTopology::single_switch || net.machines_per_leaf < 1) return 1.0;
  const double o = std::max(1.0, net.oversubscription);
  double factor = 1.0;
  if (span > net.machines_per_leaf) factor = std::min(factor, net.machines_per_leaf / o);
  const auto pod = static_cast<std::int64_t>(net.machines_per_leaf) * std::max(1, net.leaves_per_pod);
  if (net.topology == NetworkTopology::fat_tree && span > pod)
    factor = std::min(factor, static_cast<double>(pod) / (o * std::max(1.0, net.pod_oversubscription)));
  return factor;
}

bool block_splits_as_cluster(const NetworkSpec& net, int first, int count) {
  if (net.topology == NetworkTopology::single_switch) return true;
  if (net.machines_per_leaf < 1 || first % net.machines_per_leaf != 0) return false;
  if (net.topology != NetworkTopology::fat_tree) return true;
  const int pod = net.machines_per_leaf * std::max(1, net.leaves_per_pod);
  return first % pod == 0 || first / pod == (first + count - 1) / pod;
}

int Topology::leaf_of(int machine) const { return machine / machines_per_leaf_; }

int Topology::machine_of_nic(int resource) const {
  if (resource < machine_base_ || resource >= machine_base_ + 4 * machines_) return -1;
  const int local = (resource - machine_base_) % 4;
  return local <= 1 ? (resource - machine_base_) / 4 : -1;
}

std::vector<int> Topology::route(int src, int dst) const {
  if (src == dst || src < 0 || dst < 0 || src >= machines_ || dst >= machines_) {
    throw std::logic_error("topology: route needs two different machines in range");
  }
  using Vertex = Graph::Type::vertex_descriptor;
  const Graph::Type& graph = graph_->g;
  // Breadth-first search from src that stops once dst is discovered: the search records each
  // vertex's predecessor when it first reaches it (the tree edge, as boost::breadth_first_search
  // with record_predecessors does, in the same out-edge order), and a vertex's predecessor never
  // changes after that, so the path to dst is complete at its discovery. Searching on would only
  // visit the rest of the cluster (a route on 2,048 machines visited every one of them).
  const auto none = static_cast<Vertex>(-1);
  std::vector<Vertex> predecessor(boost::num_vertices(graph), none);
  std::deque<Vertex> queue{static_cast<Vertex>(src)};
  predecessor[static_cast<std::size_t>(src)] = static_cast<Vertex>(src);
  const auto target = static_cast<Vertex>(dst);
  while (!queue.empty() && predecessor[target] == none) {
    const Vertex u = queue.front();
    queue.pop_front();
    for (auto [e, end] = boost::out_edges(u, graph); e != end; ++e) {
      const Vertex v = boost::target(*e, graph);
      if (predecessor[v] != none) continue;
      predecessor[v] = u;
      if (v == target) break;
      queue.push_back(v);
    }
  }
  if (predecessor[target] == none) throw std::logic_error("topology: machines are not connected");
  std::vector<int> path;
  for (Vertex v = target; v != static_cast<Vertex>(src); v = predecessor[v]) {
    const Vertex u = predecessor[v];
    const auto edge = boost::edge(u, v, graph);
    path.push_back(graph[edge.first].resource);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace ckptsim
