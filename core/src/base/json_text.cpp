// Python-flavoured JSON: the three non-finite literals become marked strings before a strict
// parse, and parse errors are reported at the line and column of the text the user gave.
#include "base/json_text.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <vector>

namespace kvscope {
namespace {

using json = nlohmann::ordered_json;  // one JSON type in the core: readers keep document order too

// A private-use character no config writer emits starts each marked string.
constexpr std::string_view kMarkEscaped = "\\ue000";  // as written into the strict text
constexpr std::string_view kMarkUtf8 = "\xee\x80\x80";  // as the parsed string holds it

struct Literal {
  std::string_view token;
  double value;
};
const std::array<Literal, 3> kLiterals = {{
    {"-Infinity", -std::numeric_limits<double>::infinity()},
    {"Infinity", std::numeric_limits<double>::infinity()},
    {"NaN", std::numeric_limits<double>::quiet_NaN()},
}};

// One literal replaced: where it was, and where its marked string is in the strict text.
struct Replacement {
  size_t original_at = 0;
  size_t original_length = 0;
  size_t strict_at = 0;
  size_t strict_length = 0;
};

bool continues_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// nlohmann's DOM builder that also keeps what a parse error says; sax_parse calls the SAX type it
// is given, so this parse_error hides the base's (no virtual interface, no exceptions).
struct DomParser : nlohmann::detail::json_sax_dom_parser<json> {
  explicit DomParser(json& result) : json_sax_dom_parser(result, false) {}
  std::string message;
  size_t position = 0;
  template <class Exception>
  bool parse_error(std::size_t at, const std::string& token, const Exception& ex) {
    message = ex.what();
    position = at;
    return json_sax_dom_parser::parse_error(at, token, ex);
  }
};

// `text` parsed into `result` (discarded on a syntax error, which `parser` then describes).
void parse_into(std::string_view text, json& result, DomParser& parser) {
  if (!json::sax_parse(text, &parser)) result = json(json::value_t::discarded);
}

// The strict text's position `at` in the original text.
size_t original_position(size_t at, const std::vector<Replacement>& replacements) {
  size_t shift_back = 0, shift_forward = 0;
  for (const Replacement& r : replacements) {
    if (at <= r.strict_at) break;
    if (at < r.strict_at + r.strict_length) return r.original_at + (at - r.strict_at > 0 ? 1 : 0);
    shift_back += r.strict_length;
    shift_forward += r.original_length;
  }
  return at - shift_back + shift_forward;
}

// "syntax error while parsing value - ..." with the marked strings shown as written.
std::string error_detail(std::string what) {
  const size_t colon = what.find(": ", what.find("parse error"));
  if (colon != std::string::npos) what = what.substr(colon + 2);
  for (const Literal& l : kLiterals) {
    const std::string marked = "\"" + std::string(kMarkEscaped) + std::string(l.token) + "\"";
    for (size_t at = what.find(marked); at != std::string::npos; at = what.find(marked, at)) {
      what.replace(at, marked.size(), l.token);
    }
  }
  return what;
}

}  // namespace

json parse_json(std::string_view text) {
  json parsed;
  DomParser parser(parsed);
  parse_into(text, parsed, parser);
  return parsed;
}

Result<json> parse_python_json(std::string_view text, const std::string& field) {
  std::string strict;
  strict.reserve(text.size());
  std::vector<Replacement> replacements;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      strict += c;
      if (c == '\\' && i + 1 < text.size()) {
        strict += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    const Literal* found = nullptr;
    for (const Literal& l : kLiterals) {
      if (text.substr(i, l.token.size()) == l.token &&
          (i + l.token.size() == text.size() || !continues_word(text[i + l.token.size()])) &&
          (i == 0 || !continues_word(text[i - 1]))) {
        found = &l;
        break;
      }
    }
    if (found == nullptr) {
      strict += c;
      continue;
    }
    Replacement r{i, found->token.size(), strict.size(), 0};
    strict += '"';
    strict += kMarkEscaped;
    strict += found->token;
    strict += '"';
    r.strict_length = strict.size() - r.strict_at;
    replacements.push_back(r);
    i += found->token.size() - 1;
  }

  json parsed;
  DomParser parser(parsed);
  parse_into(strict, parsed, parser);
  if (!parsed.is_discarded()) return Result<json>::success(std::move(parsed));
  const size_t at = std::min(original_position(parser.position, replacements), text.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return Result<json>::failure(make_error(
      kInvalidJson, field,
      "not valid JSON at line " + std::to_string(line) + ", column " +
          std::to_string(at - line_start) + ": " + error_detail(parser.message)));
}

std::optional<double> non_finite_number(const json& value) {
  if (!value.is_string()) return std::nullopt;
  const std::string& s = value.get_ref<const std::string&>();
  if (s.compare(0, kMarkUtf8.size(), kMarkUtf8) != 0) return std::nullopt;
  const std::string_view token = std::string_view(s).substr(kMarkUtf8.size());
  for (const Literal& l : kLiterals) {
    if (token == l.token) return l.value;
  }
  return std::nullopt;
}

}  // namespace kvscope
