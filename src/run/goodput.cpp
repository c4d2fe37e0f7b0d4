// Goodput and badput buckets of one replica (goodput.hpp).
#include "ckptsim/run/goodput.hpp"

#include "ckptsim/run/run_model.hpp"

namespace ckptsim {

Goodput goodput_of(const TimeBreakdown& b, SimTime wall, std::int64_t episodes) {
  Goodput g;
  const SimTime downtime = b.detection + b.replacement_wait + b.retrieval + b.restart;
  if (episodes > 0) g.mttr_s = downtime.seconds() / static_cast<double>(episodes);
  if (wall <= SimTime::zero()) return g;
  const double w = static_cast<double>(wall.ns());
  const auto part = [w](SimTime x) { return static_cast<double>(x.ns()) / w; };
  g.goodput = part(b.training);
  g.badput_initialization = part(b.restart);
  g.badput_checkpoint_save = part(b.checkpoint_stall);
  g.badput_checkpoint_restore = part(b.retrieval);
  g.badput_wasted_progress = part(b.lost_progress);
  g.badput_infrastructure_recovery = part(b.detection + b.replacement_wait + b.migration);
  g.badput_degraded_throughput = part(b.degraded);
  g.ettr_meta = part(b.training + b.degraded);
  return g;
}

}  // namespace ckptsim
