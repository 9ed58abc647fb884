// `kvbench`: measured decode attention beside the core's estimate, as kvscope.measured/1 JSON.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace kvbench {

// Runs `kvbench <args...>` (without the program name): 0 success, 2 bad input (one line on
// `err` naming the flag), 1 a kernel that failed its correctness check.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kvbench
