// The engine table as the page and the CLI list it (each engine's id, label, knobs and versions),
// and an engine version resolved from its id or a release number.
#include "kvscope/engines/engine_catalog.hpp"

#include <cstdint>

#include "engines/engine_table.hpp"

namespace kvscope {

namespace {

// "0.15.2rc1.dev93+g11a4c9d30" -> 15'002 ((major x 1000 + minor) x 1000 + patch); -1 when not a
// release number. `patch_given` says whether it named a patch (Ollama's lines start at 0.15.5).
int release_number(std::string_view text, bool* patch_given = nullptr) {
  if (!text.empty() && text[0] == 'v') text.remove_prefix(1);
  int parts[3] = {0, 0, 0};
  size_t i = 0, part = 0;
  for (; part < 3; ++part) {
    size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 4; ++i, ++digits)
      parts[part] = parts[part] * 10 + (text[i] - '0');
    if (digits == 0) break;
    if (part == 2 || i >= text.size() || text[i] != '.') {
      ++part;
      break;
    }
    ++i;
  }
  if (patch_given != nullptr) *patch_given = part == 3;
  // A major past 2147 (no engine's) is not a release kvscope knows: -1, never an overflow.
  const int64_t n = (int64_t{parts[0]} * 1000 + parts[1]) * 1000 + parts[2];
  return part < 2 || n > INT32_MAX ? -1 : static_cast<int>(n);
}

// Whether "0.10-0.13, 0.16-" covers release `n`; a bound without a patch covers all of them.
bool covers(std::string_view ranges, int n) {
  while (!ranges.empty()) {
    const size_t comma = ranges.find(',');
    std::string_view range = ranges.substr(0, comma);
    while (!range.empty() && range.front() == ' ') range.remove_prefix(1);
    const size_t dash = range.find('-');
    const int lo = release_number(range.substr(0, dash));
    bool hi_patch = false;
    const int hi = dash == std::string_view::npos ? release_number(range, &hi_patch)
                   : dash + 1 == range.size()     ? INT32_MAX
                                              : release_number(range.substr(dash + 1), &hi_patch);
    const int last = hi >= 0 && hi != INT32_MAX && !hi_patch ? hi + 999 : hi;
    if (lo >= 0 && hi >= 0 && lo <= n && n <= last) return true;
    if (comma == std::string_view::npos) break;
    ranges.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

Result<const EngineVersion*> resolve_engine_version(const EngineInfo& engine,
                                                    std::string_view given) {
  using R = Result<const EngineVersion*>;
  if (engine.versions.empty()) {
    if (given.empty()) return R::success(nullptr);
    return R::failure(make_error(kInvalidValue, "engine_version",
                                 std::string(engine.label) + " has one version in kvscope"));
  }
  if (given.empty()) return R::success(&engine.versions.front());
  for (const EngineVersion& v : engine.versions)
    if (v.id == given) return R::success(&v);
  if (const int n = release_number(given); n >= 0) {
    for (const EngineVersion& v : engine.versions)
      if (covers(v.releases, n)) return R::success(&v);
  }
  std::string known;
  for (const EngineVersion& v : engine.versions) known += (known.empty() ? "" : ", ") + std::string(v.id);
  return R::failure(make_error(kInvalidValue, "engine_version",
                               quote_user_text(std::string(given)) + " is not a " +
                                   std::string(engine.label) + " version kvscope models (" +
                                   known + ", or a release number they cover)"));
}

const std::vector<EngineInfo>& engine_catalog() {
  static const std::vector<EngineInfo> catalog = [] {
    std::vector<EngineInfo> infos;
    for (const EngineProfile& e : engine_profiles()) infos.push_back(e.info);
    return infos;
  }();
  return catalog;
}

}  // namespace kvscope
