// Reading numbers and words out of an engine's log line: markers found with plain string search,
// numbers read after them.
#include "explain/log_text.hpp"

#include <algorithm>

#include "kvscope/base/decimal_text.hpp"

namespace kvscope::log_text {

std::string_view clean(std::string_view line, std::string& out) {
  if (line.find_first_of("\x1b\r") == std::string_view::npos) return line;
  out.clear();
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && !(line[i] >= '@' && line[i] <= '~')) ++i;
      continue;
    }
    if (c == '\r') continue;
    out += c;
  }
  return out;
}

bool number_after(std::string_view line, std::string_view marker, std::string& text,
                  double& value, size_t from) {
  const size_t at = line.find(marker, from);
  if (at == std::string_view::npos) return false;
  size_t i = at + marker.size();
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  const size_t start = i;
  if (i < line.size() && line[i] == '-') ++i;  // vLLM prints a negative KV budget when it has none
  while (i < line.size() && ((line[i] >= '0' && line[i] <= '9') || line[i] == ',' || line[i] == '.'))
    ++i;
  text.assign(line.substr(start, i - start));
  while (!text.empty() && (text.back() == '.' || text.back() == ',')) text.pop_back();
  if (text.empty() || text.size() > 30) return false;
  std::string digits;
  for (char c : text)
    if (c != ',') digits += c;
  return read_decimal(digits, value) == digits.size();
}

std::string word_after(std::string_view line, std::string_view marker) {
  const size_t at = line.find(marker);
  if (at == std::string_view::npos) return {};
  size_t i = at + marker.size();
  while (i < line.size() && (line[i] == ' ' || line[i] == '\'' || line[i] == '"')) ++i;
  const size_t start = i;
  while (i < line.size() && line[i] != ' ' && line[i] != ',' && line[i] != '\'' &&
         line[i] != '"' && line[i] != ')' && line[i] != ']' && line[i] != '}')
    ++i;
  return std::string(line.substr(start, std::min<size_t>(i - start, 200)));
}

std::vector<std::pair<std::string, std::string>> command_flags(std::string_view line,
                                                               std::string_view marker) {
  std::vector<std::pair<std::string, std::string>> out;
  const size_t at = line.find(marker);
  if (at == std::string_view::npos) return out;
  std::vector<std::string_view> words;
  for (std::string_view rest = line.substr(at + marker.size()); !rest.empty();) {
    const size_t space = rest.find(' ');
    if (space != 0) words.push_back(rest.substr(0, space));
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  for (size_t i = 0; i < words.size() && out.size() < 64; ++i) {
    std::string_view w = words[i];
    if (w.rfind("--", 0) != 0) {
      if (i == 0) out.emplace_back("model", std::string(w.substr(0, 200)));  // `vllm serve MODEL`
      continue;
    }
    w.remove_prefix(2);
    std::string key(w.substr(0, std::min<size_t>(w.find('='), 64)));
    for (char& c : key)
      if (c == '-') c = '_';
    std::string value = "True";
    if (const size_t eq = w.find('='); eq != std::string_view::npos) {
      value = std::string(w.substr(eq + 1, 200));
    } else if (i + 1 < words.size() && words[i + 1].rfind("--", 0) != 0) {
      value = std::string(words[++i].substr(0, 200));
    }
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> pairs_after(std::string_view line,
                                                            std::string_view marker) {
  std::vector<std::pair<std::string, std::string>> out;
  const size_t at = line.find(marker);
  if (at == std::string_view::npos) return out;
  std::string_view rest = line.substr(at + marker.size());
  // A Python dict ("non-default args: {'max_model_len': 8192, ...}") holds the pairs at its top.
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (!rest.empty() && rest.front() == '{') rest.remove_prefix(1);
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  const auto take = [&](std::string_view item) {
    size_t eq = item.find('=');
    const size_t colon = item.find(':');
    if (colon != std::string_view::npos && (eq == std::string_view::npos || colon < eq)) eq = colon;
    if (eq == std::string_view::npos) return;
    auto trim = [](std::string_view s) {
      while (!s.empty() && (s.front() == ' ' || s.front() == '\'' || s.front() == '"' ||
                            s.front() == '{' || s.front() == '('))
        s.remove_prefix(1);
      while (!s.empty() && (s.back() == ' ' || s.back() == '\'' || s.back() == '"' ||
                            s.back() == '}' || s.back() == ')'))
        s.remove_suffix(1);
      return std::string(s.substr(0, 300));
    };
    const std::string key = trim(item.substr(0, eq));
    if (!key.empty() && key.size() < 80) out.emplace_back(key, trim(item.substr(eq + 1)));
  };
  for (size_t i = 0; i < rest.size() && out.size() < 400; ++i) {
    const char c = rest[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && --depth < 0) {
      take(rest.substr(start, i - start));
      return out;
    }
    if (c == ',' && depth == 0) {
      take(rest.substr(start, i - start));
      start = i + 1;
    }
  }
  take(rest.substr(start));
  return out;
}

bool annotation(std::string_view line) {
  for (const char* key : {"# source:", "# engine:", "# device:", "# model:", "# launch:",
                          "# check:", "# note:", "# explain:", "# explain-note:"})
    if (line.rfind(key, 0) == 0) return true;
  return false;
}

}  // namespace kvscope::log_text
