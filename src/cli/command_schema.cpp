// ckptsim schema: prints the JSON Schema (draft 2020-12) of the scenario format, generated
// from the loader's parameter table (include/ckptsim/scenario/schema.hpp). The committed copy is
// docs/scenario.schema.json; a test keeps the two equal.
#include <ostream>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/scenario/schema.hpp"

namespace ckptsim::cli {

int command_schema(const CommandContext& ctx) {
  namespace po = boost::program_options;
  po::options_description options(
      "usage: ckptsim schema\n\nPrints the JSON Schema (draft 2020-12) of scenario files: types, units as patterns, "
      "names,\nranges, defaults and descriptions of every parameter (docs/scenario.schema.json).\n\noptions");
  options.add_options()("help,h", "print this help");
  if (!parse_command_options(ctx, options)) return 0;
  ctx.out << scenario_schema().dump(2) << '\n';
  return 0;
}

}  // namespace ckptsim::cli
