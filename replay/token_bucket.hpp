// Token-bucket pacing of one rank's sends, to emulate a network of `rate` bytes/s on a machine
// whose MPI transport (shared memory) is much faster. A send of b bytes takes b tokens; tokens
// refill at `rate` up to `depth`. Tokens may go negative: the debt is repaid at `rate`, and the
// send counts as finished on the wire when its debt is repaid, so a rank's sends take
// sum(bytes)/rate in all, in the order they were made (first come, first paced).
#pragma once
#include <algorithm>

namespace ckptsim::replay {

class TokenBucket {
 public:
  TokenBucket(double rate, double depth, double now) : rate_(rate), depth_(depth), tokens_(depth), last_(now) {}

  [[nodiscard]] bool unlimited() const { return rate_ <= 0; }

  /// Takes `bytes` tokens at time `now`; returns when the send is through the emulated link.
  double take(double bytes, double now) {
    if (unlimited()) return now;
    refill(now);
    tokens_ -= bytes;
    return tokens_ >= 0 ? now : now + (-tokens_) / rate_;
  }

  /// Whether a new send may start at `now` (no debt outstanding).
  bool ready(double now) {
    if (unlimited()) return true;
    refill(now);
    return tokens_ >= 0;
  }

 private:
  void refill(double now) {
    tokens_ = std::min(depth_, tokens_ + (now - last_) * rate_);
    last_ = now;
  }
  double rate_;
  double depth_;
  double tokens_;
  double last_;
};

}  // namespace ckptsim::replay
