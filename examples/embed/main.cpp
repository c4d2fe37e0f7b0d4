// An out-of-tree program using the installed ckptsim library: loads a scenario, runs the run
// model's Monte Carlo replicas and prints the mean ETTR. Build it against an installed ckptsim:
//   c++ -std=c++20 -O2 main.cpp $(pkg-config --cflags --libs --static ckptsim) -o embed
//   ./embed scenarios/paper/gpt2-100b-16xp4d.json 50
#include <cstdlib>
#include <iostream>
#include <string>

#include <ckptsim/core/error.hpp>
#include <ckptsim/run/monte_carlo.hpp>
#include <ckptsim/run/resolve_costs.hpp>
#include <ckptsim/scenario/loader.hpp>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: embed SCENARIO.json [REPLICAS]\n";
    return 2;
  }
  try {
    const ckptsim::Scenario scenario = ckptsim::load_scenario_file(argv[1]);
    const ckptsim::RunModel model(scenario, ckptsim::resolve_strategy_costs(scenario));
    ckptsim::MonteCarloOptions options;
    options.replicas = argc > 2 ? std::atoi(argv[2]) : scenario.run.replicas;
    const ckptsim::RunSummary summary = ckptsim::summarize(ckptsim::run_replicas(model, options));
    std::cout << scenario.name << ": ETTR " << summary.at("ettr").mean << " +- " << summary.at("ettr").ci95
              << " over " << summary.replicas << " replicas\n";
    return 0;
  } catch (const ckptsim::InputError& e) {  // file, JSON pointer, expected, found
    for (const auto& problem : e.problems()) std::cerr << "error: " << ckptsim::format_problem(problem) << '\n';
    return 2;
  }
}
