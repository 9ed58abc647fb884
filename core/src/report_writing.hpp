// The estimate's part of every report, shared by the estimate's writer (report_json.cpp) and the
// plan's (plan_json.cpp).
#pragma once

#include "json_writing.hpp"
#include "kvscope/estimate.hpp"

namespace kvscope::report_writing {

// The report's first members, opening its "input" object.
void begin_report(JsonWriter& w);

// The estimate's input members: a plan adds its own to the same object.
void write_estimate_input(JsonWriter& w, const EstimateReport& r);

// Everything of the estimate after its input, the start of a plan's report too.
void write_estimate_results(JsonWriter& w, const EstimateReport& r);

}  // namespace kvscope::report_writing
