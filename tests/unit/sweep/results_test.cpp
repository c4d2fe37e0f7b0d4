// points.csv: tidy columns, RFC 4180 quoting, mean and ci95 columns, invalid rows.
#include <doctest/doctest.h>

#include "ckptsim/sweep/results.hpp"

using namespace ckptsim;
using namespace ckptsim::sweep;
using nlohmann::json;

TEST_CASE("points.csv: one row per point, values as written, mean and _ci95 columns, errors last") {
  const SweepTable table{{{"strategy", "/strategy"}, {"machines", "/cluster/machines"}},
                         {{"ettr", "/summary/ettr"}, {"iteration_time_s", "/costs/iteration_time_s"}}};
  PointRecord ok;
  ok.index = 0;
  ok.values = {json{{"kind", "gemini"}}, 16};
  ok.status = PointStatus::ok;
  ok.result = {{"summary", {{"ettr", {{"mean", 0.25}, {"std", 1}, {"ci95", 0.5}}}}}, {"costs", {{"iteration_time_s", 21.5}}}};
  PointRecord bad;
  bad.index = 1;
  bad.values = {"remote, \"periodic\"", 0};
  bad.status = PointStatus::invalid;
  bad.error = "base.json: /cluster/machines: expected a positive integer, found 0";
  // The object value is compact JSON with its quotes doubled inside a quoted cell; a string with
  // a comma and quotes is quoted the same way; a metric without ci95 gets no _ci95 column; an
  // invalid point has empty metric cells and its error (quoted: it holds commas) in the last column.
  CHECK(points_csv(table, {ok, bad}) ==
        "index,strategy,machines,status,ettr,ettr_ci95,iteration_time_s,error\n"
        "0,\"{\"\"kind\"\":\"\"gemini\"\"}\",16,ok,0.25,0.5,21.5,\n"
        "1,\"remote, \"\"periodic\"\"\",0,invalid,,,,\"base.json: /cluster/machines: expected a positive integer, found 0\"\n");
}

TEST_CASE("points.csv: doubles in their shortest exact form") {
  const SweepTable table{{{"rate", "/rate"}}, {{"x", "/x"}}};
  PointRecord r;
  r.index = 7;
  r.values = {0.1};
  r.status = PointStatus::ok;
  r.result = {{"x", 1.0 / 3.0}};
  // 1/3 needs 16 significant digits to read back exactly; 0.1 needs one.
  CHECK(points_csv(table, {r}) == "index,rate,status,x,error\n7,0.1,ok,0.3333333333333333,\n");
}
