// The readable report of `kvscope check`: the verdict, the changes that make a refused launch
// start (each as the command to run), and what kvscope did with each flag.
#include <cstdio>
#include <string>

#include "kvscope/base/units.hpp"
#include "kvscope/request/check.hpp"
#include "text_report.hpp"

namespace kvscope::cli {

void print_check(const CheckReport& r, std::ostream& out) {
  out << "kvscope check: " << r.launch.program << " " << r.launch.model << " (" << r.launch.engine;
  if (!r.launch.engine_version.empty()) out << " " << r.launch.engine_version;
  out << ")\n";
  for (const std::string& a : r.assumptions) out << "  assumed: " << a << "\n";
  out << "\n";
  for (const CheckFinding& f : r.findings) out << "  " << f.severity << ": " << f.message << "\n";
  if (!r.fixes.empty()) out << "\nChanges that make it start:\n";
  for (const CheckFix& f : r.fixes) {
    char fit[64] = "";
    if (f.has_capacity)
      std::snprintf(fit, sizeof fit, ", %.2f sequences of it fit", f.sequences_that_fit);
    out << "  " << f.change << "  (" << f.why << ": max_model_len " << with_commas(f.max_model_len)
        << fit << ")\n    " << f.launch_command << "\n";
  }
  out << "\nFlags:\n";
  for (const LaunchFlag& f : r.launch.flags) {
    out << "  " << f.flag << (f.value.empty() ? "" : " " + f.value) << ": "
        << flag_effect_name(f.effect) << (f.note.empty() ? "" : ", " + f.note) << "\n";
  }
  if (r.launch.flags.empty()) out << "  none besides the model\n";
  if (r.planned) {
    std::string line = "kvscope plan";
    for (const std::string& w : r.plan_arguments) line += " " + w;
    out << "\nThe same plan: " << line << "\n";
  }
}

}  // namespace kvscope::cli
