// ckptsim: the command-line front end. All work happens in cli::dispatch.
#include <iostream>
#include <string>
#include <vector>

#include "ckptsim/cli/commands.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  const int code = ckptsim::cli::dispatch(args, std::cout, std::cerr);
  std::cout.flush();
  return code;
}
