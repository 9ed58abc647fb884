// libFuzzer target: arbitrary bytes as a pasted launch command, checked on a catalogue card (the
// first byte picks it, or none). check_launch must return an error naming "launch" (or the flag)
// in one line, or a report whose findings are one line each, whose fixes start, and whose JSON
// is valid; anything else aborts. Seeds: tests/fuzz/corpus/check/.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "fuzz_invariant.hpp"
#include "kvscope/model/catalog.hpp"
#include "kvscope/request/check.hpp"
#include "kvscope/request/report_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kvscope;
  if (size == 0) return 0;
  const std::vector<GpuEntry>& gpus = gpu_catalog();
  CheckInput in;
  if (data[0] % 4 != 0) {
    in.base_arguments = {"--gpu", gpus[data[0] % gpus.size()].id};
    in.card_given = true;
  }
  in.launch_text.assign(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Result<CheckReport> r = check_launch(in);
  if (!r.ok) {
    if (r.error.message.empty() || r.error.message.find('\n') != std::string::npos)
      violated("one-line error", r.error.message);
    if (r.error.field.empty()) violated("error names its field", r.error.message);
    return 0;
  }
  for (const CheckFinding& f : r.value.findings)
    if (f.message.empty() || f.message.find('\n') != std::string::npos) violated("one-line finding", f.message);
  if (r.value.starts && !r.value.planned) violated("starts without a plan", r.value.launch.model);
  if (r.value.starts && !r.value.fixes.empty()) violated("fixes for a launch that starts", r.value.fixes[0].change);
  for (const CheckFix& f : r.value.fixes)
    if (f.launch_command.empty() || f.change.empty()) violated("a fix says its change and command", f.why);
  if (!nlohmann::json::accept(check_to_json(r.value))) violated("valid JSON", r.value.launch.model);
  return 0;
}
