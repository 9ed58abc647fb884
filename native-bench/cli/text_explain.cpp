// The readable report of `kvscope explain`: each figure of the log beside kvscope's, and the plan
// the log describes as a command.
#include <string>

#include "kvscope/request/command_line.hpp"
#include "text_report.hpp"

namespace kvscope::cli {

void print_explain(const ExplainReport& r, std::ostream& out) {
  out << "kvscope explain: " << r.engine_label << "'s start-up log";
  if (!r.engine_version.empty()) out << " (" << r.engine_version << ")";
  out << ", " << r.lines << " lines; model " << r.model_name;
  if (!r.model_printed.empty() && r.model_printed != r.model_id)
    out << " (the log says " << r.model_printed << ")";
  if (!r.modelled_version.empty())
    out << "\n  modelled as " << r.engine_label << " " << r.modelled_version_label;
  out << "\n  read from the log:";
  for (const auto& [key, value] : r.arguments) out << " " << key << "=" << value;
  out << "\n";
  for (const TakenFigure& f : r.inputs)
    out << "  line " << f.line << ": " << f.name << " " << f.printed << " " << f.unit
        << ", taken as given\n";
  out << "\n";
  for (const ExplainedFigure& f : r.figures) {
    const char* mark = f.match == "exact" ? "=" : f.match == "rounding" ? "~" : "!";
    out << "  line " << f.line << ": " << f.name << "\n    printed " << f.printed << " " << f.unit
        << " . kvscope " << (f.kvscope.empty() ? "-" : f.kvscope + " " + f.unit) << "  " << mark
        << " " << f.match;
    if (!f.derivation.empty()) out << " (" << f.derivation << ")";
    out << "\n";
    if (!f.reason.empty()) out << "    " << f.reason << "\n";
  }
  if (r.figures.empty()) out << "  no figure kvscope reproduces\n";
  Request plan;
  plan.command = Command::kPlan;
  plan.input = r.plan;
  std::string line;
  for (const std::string& w : command_line_arguments(plan)) line += (line.empty() ? "" : " ") + w;
  out << "\n" << (r.calibrated ? "Calibrated from the log" : "The deployment") << ": kvscope "
      << line << "\n";
  for (const std::string& c : r.calibration) out << "  - " << c << "\n";
  for (const std::string& n : r.notes) out << "  note: " << n << "\n";
}

}  // namespace kvscope::cli
