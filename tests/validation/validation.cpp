// Prints VALIDATION.md: numbers that serving engines printed in public logs, beside what the
// `kvscope` command prints for the same inputs. Exit status 1 when any row does not match.
// Regenerate after a deliberate change: build/native/tests/kvscope_validation > VALIDATION.md
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "kvscope/engines/engine_catalog.hpp"
#include "kvscope_cli.hpp"
#include "validation_cases.hpp"

namespace {

using nlohmann::json;
using validation::Case;
using validation::cases;
using validation::words;


bool matches(const Case& c, const std::string& ours) {
  if (c.tolerance == 0) return ours == c.printed;
  return std::abs(std::stod(ours) / std::stod(c.printed) - 1) <= c.tolerance;
}

std::string shown(const std::vector<std::string>& args) {
  std::string out = "kvscope";
  for (const std::string& a : args) {
    const size_t data = a.find("/tests/data/");
    out += " " + (data == std::string::npos ? a : a.substr(data + 1));
  }
  return out;
}

// The flags on a committed log's "# explain:" line (paths under tests/data/ made absolute); false
// when it has none.
bool explain_flags(const std::string& log_text, std::vector<std::string>& flags) {
  std::istringstream in(log_text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# explain:", 0) != 0) continue;
    for (std::string& w : words(line.substr(10))) {
      if (w.rfind("tests/data/", 0) == 0) w = std::string(KVSCOPE_TEST_DATA_DIR) + w.substr(10);
      flags.push_back(w);
    }
    return true;
  }
  return false;
}

std::string cell(std::string text) {
  for (char& c : text)
    if (c == '|' || c == '\n') c = ' ';
  return text;
}

// Every log in tests/data/logs/ through `kvscope explain --json`: a table per engine of each
// figure the log printed beside kvscope's, and the logs kvscope could not explain, with why. A log
// with an "# explain:" line must be explained; one without is listed with kvscope's error.
int explain_logs() {
  namespace fs = std::filesystem;
  std::vector<fs::path> logs;
  for (const auto& e : fs::directory_iterator(std::string(KVSCOPE_TEST_DATA_DIR) + "/logs"))
    if (e.path().extension() == ".log") logs.push_back(e.path());
  std::sort(logs.begin(), logs.end());
  struct Tally {
    size_t logs = 0, figures = 0, exact = 0, rounding = 0, differs = 0;
    std::string rows;
    std::string older_versions;  // logs explained as an older version line of the engine
  };
  std::map<std::string, Tally> by_engine;
  std::string unexplained;
  int failures = 0;
  for (const fs::path& path : logs) {
    std::ifstream file(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::vector<std::string> args = {"explain", path.string()};
    const bool mapped = explain_flags(text, args);
    args.push_back("--json");
    std::ostringstream out, err;
    const int status = kvscope::cli::run(args, out, err, kvscope::cli::read_file_from_disk);
    const std::string name = path.filename().string();
    const json j = status == 0 ? json::parse(out.str(), nullptr, false) : json();
    if (status != 0 || j.is_discarded()) {
      std::string why = err.str();
      while (!why.empty() && why.back() == '\n') why.pop_back();
      unexplained += "| " + name + " | " + (mapped ? "**yes**" : "no") + " | " + cell(why) + " |\n";
      failures += mapped ? 1 : 0;
      continue;
    }
    Tally& t = by_engine[j["engine_label"].get<std::string>()];
    ++t.logs;
    if (const json& v = j["modelled_version"]; v.is_object()) {
      for (const kvscope::EngineInfo& e : kvscope::engine_catalog()) {
        if (e.id == j["engine"].get<std::string>() && !e.versions.empty() &&
            e.versions.front().id != v["id"].get<std::string>())
          t.older_versions += "- " + name + ": " + v["label"].get<std::string>() + "\n";
      }
    }
    std::string inputs;
    for (const json& in : j["inputs"])
      inputs += (inputs.empty() ? "" : "; ") + in["name"].get<std::string>() + " " +
                in["printed"].get<std::string>() + " " + in["unit"].get<std::string>() +
                " (line " + std::to_string(in["line"].get<size_t>()) + ")";
    if (j["figures"].empty()) {
      t.rows += "| " + name + " | | no figure kvscope reproduces | | | | " + cell(inputs) + " |\n";
    }
    for (const json& f : j["figures"]) {
      const std::string match = f["match"].get<std::string>();
      ++t.figures;
      (match == "exact" ? t.exact : match == "rounding" ? t.rounding : t.differs)++;
      std::string why = f["reason"].is_string() ? f["reason"].get<std::string>() : "";
      if (f["derivation"].is_string())
        why = f["derivation"].get<std::string>() + (why.empty() ? "" : "; " + why);
      t.rows += "| " + name + " | " + std::to_string(f["line"].get<size_t>()) + ": " +
                cell(f["name"].get<std::string>()) + " | " + f["printed"].get<std::string>() + " " +
                f["unit"].get<std::string>() + " | " +
                (f["kvscope"].is_string() ? f["kvscope"].get<std::string>() : "-") + " | " + match +
                " | " + cell(why) + " |\n";
    }
  }
  std::cout << "\n## Start-up logs, explained\n\n"
               "Every log in `tests/data/logs/` (each a verbatim excerpt; its `# source:` lines say "
               "where it\ncomes from) run through `kvscope explain LOG --json` with the flags on "
               "its `# explain:` line, which\nnames the catalogue entry or config when the log "
               "does not (and why an entry stands in for the model,\non `# explain-note:`). "
               "\"exact\": kvscope prints the engine's digits; \"rounding\": a budget\ninside "
               "the rounding of the one the log printed gives them; \"differs\": the reason is "
               "kvscope's\nown, stated, not tuned away.\n\n"
               "| engine | logs explained | figures | exact | rounding | differs |\n|---|---|---|---|---|---|\n";
  for (const auto& [engine, t] : by_engine)
    std::cout << "| " << engine << " | " << t.logs << " | " << t.figures << " | " << t.exact << " | "
              << t.rounding << " | " << t.differs << " |\n";
  for (const auto& [engine, t] : by_engine) {
    std::cout << "\n### " << engine << "\n\n| log | line: figure | engine printed | kvscope | match "
                 "| how, or why it differs |\n|---|---|---|---|---|---|\n"
              << t.rows;
    if (!t.older_versions.empty()) {
      std::cout << "\nExplained as an older " << engine
                << " (the version the log prints or shows, or its `# explain:` line names; "
                   "`kvscope engines` lists what each changes):\n\n"
                << t.older_versions;
    }
  }
  std::cout << "\n### Logs kvscope does not explain\n\n| log | has `# explain:` | kvscope says |\n"
               "|---|---|---|\n"
            << unexplained;
  return failures;
}

}  // namespace

int main() {
  std::cout << "# Validation: engine logs beside kvscope\n\n"
               "Generated by `tests/validation/validation.cpp` (CTest "
               "`validation.matches_committed`): each row is a\n"
               "figure a serving engine printed, the inputs that produced it, and what `kvscope` "
               "prints for the\n"
               "same inputs. Exact rows must match to the engine's printed digits; rows marked "
               "±0.5% depend on\n"
               "memory vLLM measures at start-up (activation peak), which kvscope estimates. "
               "Budgets given with\n"
               "`--kv-memory` are chosen inside the rounding of the engine's printed \"available\" "
               "figure.\n"
               "Rows marked \"different\" say why kvscope's figure is not the engine's; the test "
               "fails if such a\n"
               "row starts to match (the reason would then be stale). The card in a command does "
               "not change\n"
               "llama.cpp's buffer sizes; the log's device is in its header.\n\n"
               "| engine | source | figure | engine printed | kvscope | match | kvscope command |\n"
               "|---|---|---|---|---|---|---|\n";
  int failures = 0;
  for (const Case& c : cases()) {
    std::vector<std::string> args = c.args;
    args.push_back("--json");
    std::ostringstream out, err;
    const int status = kvscope::cli::run(args, out, err, kvscope::cli::read_file_from_disk);
    std::string ours = "error: " + err.str();
    if (status == 0) {
      const json j = json::parse(out.str(), nullptr, false);
      ours = j.is_discarded() ? "invalid JSON" : c.kvscope(j);
    }
    const bool ok = status == 0 && matches(c, ours);
    const bool explained = status == 0 && !ok && c.differs != nullptr;
    failures += ok || explained ? 0 : 1;
    if (ok && c.differs != nullptr) ++failures;  // a stated difference that no longer is one
    std::cout << "| " << c.engine << " | " << c.source << " | " << c.what << " | " << c.printed
              << " | " << ours << " | "
              << (ok          ? (c.tolerance == 0 ? "exact" : "±0.5%")
                  : explained ? "different: " + std::string(c.differs)
                              : "**NO**")
              << " | `" << shown(c.args) << "` |\n";
  }
  failures += explain_logs();
  return failures == 0 ? 0 : 1;
}
