// What a mistyped name was probably meant to be: for "did you mean ...?" in catalogue, command
// and flag errors.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kvscope {

// ASCII letters lowercased (names, dtypes and flags compare without case).
std::string lowercase(std::string_view s);

// Levenshtein distance between two short strings.
size_t edit_distance(std::string_view a, std::string_view b);

// Up to `most` of `names` closest to `wanted` (lowercased), best first, joined by ", ": a name
// that begins with it or contains it ranks before any within a few edits ("h100" ->
// h100-sxm-80gb), then the nearest by edits; empty when none is close. `spellings_of(i)` are
// the other ways entry i may be typed (display names, repository ids).
std::string closest_names(const std::vector<std::string>& names,
                          const std::vector<std::vector<std::string>>& spellings,
                          std::string_view wanted, size_t most = 3);

}  // namespace kvscope
