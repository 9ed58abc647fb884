// kvbench's timing loop and quantiles (bench_timing.hpp).
#include "bench_timing.hpp"

#include <algorithm>
#include <chrono>

namespace kvbench {

double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1,
                         static_cast<size_t>(q * static_cast<double>(values.size())))];
}

double seconds_of(const std::function<void()>& step) {
  const auto start = std::chrono::steady_clock::now();
  step();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Timing time_runs(const std::function<void()>& step) {
  Timing t;
  for (; t.warmup < 2; ++t.warmup) step();
  const auto begin = std::chrono::steady_clock::now();
  while (t.samples.size() < 10 ||
         (std::chrono::steady_clock::now() - begin < std::chrono::milliseconds(500) &&
          t.samples.size() < 200)) {
    t.samples.push_back(seconds_of(step));
    if (std::chrono::steady_clock::now() - begin > std::chrono::seconds(20)) break;
  }
  return t;
}

}  // namespace kvbench
