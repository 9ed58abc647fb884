// What the report writers share: the estimate's part of every report (report_json.cpp writes it for
// the estimate and the plan), dtypes and engine version lines.
#pragma once

#include "base/json_writer.hpp"
#include "kvscope/kv/estimate.hpp"
#include "kvscope/model/dtype.hpp"
#include "kvscope/plan/plan.hpp"

namespace kvscope {

// {"name", "bits_per_value", "scale_bits_per_row", "exact", "description"} of a dtype.
void write_dtype(JsonWriter& w, const Dtype& d);
// `key`: {"id", "label"} of an engine's version line, or null when `id` is empty.
void write_version_line(JsonWriter& w, std::string_view key, const std::string& id,
                        const std::string& label);
// "plan_request": the plan `input` describes as a kvscope.request/1 for `plan` (the page opens it,
// the CLI takes it with --request), or null when there is none.
void write_plan_request(JsonWriter& w, const PlanInput* input);

namespace report_writing {

// The report's first members, opening its "input" object.
void begin_report(JsonWriter& w);

// The estimate's input members: a plan adds its own to the same object.
void write_estimate_input(JsonWriter& w, const EstimateReport& r);

// Everything of the estimate after its input, the start of a plan's report too.
void write_estimate_results(JsonWriter& w, const EstimateReport& r);

}  // namespace report_writing
}  // namespace kvscope
