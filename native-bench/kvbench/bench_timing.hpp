// How kvbench times a step: two untimed calls, then the steady clock around each call, at least
// 10 and up to 200 samples within half a second (20 s at most); and the quantiles it reports.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace kvbench {

// The q-quantile of a non-empty set of values (the value at rank q x n, as the record's p10/p90).
double quantile(std::vector<double> values, double q);

struct Timing {
  std::vector<double> samples;  // seconds per call, in order
  uint32_t warmup = 0;
  double quantile(double q) const { return kvbench::quantile(samples, q); }
};

// Seconds one call of step takes (steady clock).
double seconds_of(const std::function<void()>& step);

Timing time_runs(const std::function<void()>& step);

}  // namespace kvbench
