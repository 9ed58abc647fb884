#include "base/spelling.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace kvscope {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string closest_names(const std::vector<std::string>& names,
                          const std::vector<std::vector<std::string>>& spellings,
                          std::string_view wanted, size_t most) {
  if (wanted.empty() || wanted.size() > 64) return "";
  const std::string typed = lowercase(wanted);
  const size_t limit = std::max<size_t>(2, typed.size() / 4);
  std::vector<std::pair<size_t, const std::string*>> close;  // (rank, name): 0 prefix, 1 inside
  for (size_t i = 0; i < names.size(); ++i) {
    size_t rank = SIZE_MAX;
    const auto consider = [&](const std::string& s) {
      if (s.rfind(typed, 0) == 0) rank = std::min<size_t>(rank, 0);
      else if (typed.size() >= 3 && s.find(typed) != std::string::npos) rank = std::min<size_t>(rank, 1);
      else if (const size_t d = edit_distance(s, typed); d <= limit) rank = std::min(rank, 2 + d);
    };
    consider(names[i]);
    if (i < spellings.size())
      for (const std::string& s : spellings[i]) consider(s);
    if (rank != SIZE_MAX) close.emplace_back(rank, &names[i]);
  }
  // The `most` nearest, in rank order and catalogue order among equals: picked one at a time
  // (most is 3), which the module links in much less code than a stable sort.
  std::string out;
  for (size_t shown = 0; shown < most; ++shown) {
    auto best = close.end();
    for (auto it = close.begin(); it != close.end(); ++it)
      if (it->second != nullptr && (best == close.end() || it->first < best->first)) best = it;
    if (best == close.end()) break;
    out += (shown == 0 ? "" : ", ") + *best->second;
    best->second = nullptr;
  }
  return out;
}

}  // namespace kvscope
