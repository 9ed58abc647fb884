// kvbench's output: the kvscope.measured/1 record of one run (the problem, timing, machine, the
// core's estimate and the correctness check, with the tool's version, commit, date and command)
// and its text summary.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "bench_check.hpp"
#include "bench_machine.hpp"
#include "bench_problem.hpp"
#include "bench_timing.hpp"

namespace kvbench {

// args: the command's arguments as given; bytes: what one step reads; estimate_bytes: the core's
// count of them.
nlohmann::ordered_json make_record(const std::vector<std::string>& args, const BenchArgs& a,
                                   const Problem& p, const Timing& timing, const Machine& machine,
                                   uint64_t bytes, uint64_t estimate_bytes,
                                   const Correctness& check);

std::string summary(const nlohmann::ordered_json& record);

}  // namespace kvbench
