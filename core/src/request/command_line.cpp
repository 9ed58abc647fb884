// `kvscope <command> --flag value ...` into a kvscope.request/1 object through the field table
// (the way back, and the usage, in command_line_text.cpp): each flag's text becomes its key's
// JSON value, and request_from_json checks it as it checks the page's requests, so both say the
// same about the same input.
#include "kvscope/request/command_line.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "kvscope/base/decimal_text.hpp"
#include "kvscope/request/report_json.hpp"
#include "kvscope/base/units.hpp"
#include "request/request_fields.hpp"
#include "base/spelling.hpp"

namespace kvscope {
namespace {

using nlohmann::ordered_json;
using namespace request_fields;

constexpr size_t kMaxFileBytes = 16u << 20;

Error usage_error(std::string_view flag, const std::string& detail) {
  return make_error(kInvalidValue, std::string(flag), detail);
}

const Field* field_of_flag(std::string_view flag, Command command) {
  for (const Field& f : fields())
    if (f.flag == flag && reads(f.commands, command)) return &f;
  return nullptr;
}

// The JSON slot of a dotted key inside `root`.
ordered_json& slot(ordered_json& root, std::string_view dotted) {
  ordered_json* at = &root;
  std::string key(dotted);
  for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.')) {
    at = &(*at)[key.substr(0, dot)];
    key = key.substr(dot + 1);
  }
  return (*at)[key];
}

bool parse_decimal(const std::string& text, double& out) {
  return !text.empty() && read_decimal(text, out) == text.size() && std::isfinite(out);
}

// One flag's text as its key's JSON value.
Result<ordered_json> flag_value(const Field& f, const std::string& text,
                                const FileReader& read_file) {
  using R = Result<ordered_json>;
  std::string why;
  switch (f.kind) {
    case Kind::kCount: {
      uint64_t count = 0;
      if (!parse_count_text(text, count, why)) return R::failure(usage_error(f.flag, why));
      return R::success(count);
    }
    case Kind::kBytes: {
      uint64_t bytes = 0;
      if (!parse_size_text(text, bytes, why)) return R::failure(usage_error(f.flag, why));
      return R::success(bytes);
    }
    case Kind::kRate: {
      std::string size = text;
      if (size.size() > 2 && size.compare(size.size() - 2, 2, "/s") == 0)
        size.resize(size.size() - 2);
      uint64_t bytes = 0;
      if (!parse_size_text(size, bytes, why)) {
        return R::failure(usage_error(
            f.flag, "expected a rate such as 1TB/s or 936GB/s, got " + quote_user_text(text)));
      }
      return R::success(static_cast<double>(bytes));
    }
    case Kind::kNumber: {
      double value = 0;
      if (!parse_decimal(text, value)) {
        return R::failure(
            usage_error(f.flag, "expected a number such as 0.9, got " + quote_user_text(text)));
      }
      return R::success(value);
    }
    case Kind::kNumberList: {
      ordered_json list = ordered_json::array();
      for (size_t start = 0; start <= text.size();) {
        const size_t comma = std::min(text.find(',', start), text.size());
        double value = 0;
        if (!parse_decimal(text.substr(start, comma - start), value) || value < 0 ||
            list.size() >= 64) {
          return R::failure(usage_error(
              f.flag,
              "expected proportions such as 3,1 (at most 64), got " + quote_user_text(text)));
        }
        list.push_back(value);
        start = comma + 1;
      }
      return R::success(std::move(list));
    }
    case Kind::kFile: {
      std::string content, reason;
      if (!read_file(text, content, reason))
        return R::failure(usage_error(f.flag, reason + ": " + quote_user_text(text)));
      if (content.empty())
        return R::failure(usage_error(f.flag, "file is empty: " + quote_user_text(text)));
      if (content.size() > kMaxFileBytes)
        return R::failure(
            usage_error(f.flag, "file is larger than 16 MiB: " + quote_user_text(text)));
      return R::success(ordered_json{{"name", text}, {"text", std::move(content)}});
    }
    case Kind::kSwitch:
      return R::success(f.flag_sets);
    case Kind::kTextList: {
      ordered_json list = ordered_json::array();
      for (size_t start = 0; start <= text.size();) {
        const size_t comma = std::min(text.find(',', start), text.size());
        if (comma == start) {
          return R::failure(
              usage_error(f.flag, "expected names such as a,b, got " + quote_user_text(text)));
        }
        list.push_back(text.substr(start, comma - start));
        start = comma + 1;
      }
      return R::success(std::move(list));
    }
    case Kind::kNumberMap: {
      const size_t sep = text.find('=');
      double value = 0;
      if (sep == std::string::npos || sep == 0 || !parse_decimal(text.substr(sep + 1), value)) {
        return R::failure(
            usage_error(f.flag, "expected ID=NUMBER such as h100-sxm-80gb=2.5, got " +
                                    quote_user_text(text)));
      }
      return R::success(ordered_json{{text.substr(0, sep), value}});
    }
    case Kind::kText:
    case Kind::kJsonText:
    case Kind::kOverrides:
      break;
  }
  return R::success(text);
}

}  // namespace

bool parse_count_text(std::string_view text, uint64_t& out, std::string& why) {
  why = "expected a whole number >= 0 (e.g. 4096 or 128k), got " + quote_user_text(text);
  std::string digits(text);
  uint64_t multiplier = 1;
  if (!digits.empty() && (digits.back() == 'k' || digits.back() == 'K')) multiplier = 1024;
  if (!digits.empty() && (digits.back() == 'm' || digits.back() == 'M')) multiplier = 1024 * 1024;
  if (multiplier != 1) digits.pop_back();
  if (digits.empty() || digits.size() > 20) return false;
  uint64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    if (__builtin_mul_overflow(value, uint64_t{10}, &value) ||
        __builtin_add_overflow(value, static_cast<uint64_t>(c - '0'), &value)) {
      why = "value " + quote_user_text(text) + " exceeds 2^64-1";
      return false;
    }
  }
  if (__builtin_mul_overflow(value, multiplier, &value)) {
    why = "value " + quote_user_text(text) + " exceeds 2^64-1";
    return false;
  }
  out = value;
  return true;
}

bool parse_size_text(std::string_view text, uint64_t& out, std::string& why) {
  static const std::pair<const char*, double> kUnits[] = {
      {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0},
      {"kb", 1e3},     {"mb", 1e6},        {"gb", 1e9},           {"tb", 1e12},
      {"b", 1.0}};
  std::string number;
  for (char c : text) number += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double multiplier = 1;
  for (const auto& [unit, factor] : kUnits) {
    const size_t n = std::char_traits<char>::length(unit);
    if (number.size() > n && number.compare(number.size() - n, n, unit) == 0) {
      number.resize(number.size() - n);
      multiplier = factor;
      break;
    }
  }
  why = "expected a size such as 24GB, 80GiB or 13.5GB, got " + quote_user_text(text);
  double value = 0;
  if (number.find_first_not_of("0123456789.") != std::string::npos || !parse_decimal(number, value))
    return false;
  value *= multiplier;
  if (value < 1 || value > 9.2e18) {
    why = "must be between 1 byte and 9.2e18 bytes, got " + quote_user_text(text);
    return false;
  }
  out = static_cast<uint64_t>(std::llround(value));
  return true;
}

Result<CommandLine> parse_command_line(const std::vector<std::string>& args,
                                       const FileReader& read_file) {
  using R = Result<CommandLine>;
  CommandLine line;
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    line.help = true;
    return R::success(line);
  }
  if (args[0] == "--version") {
    line.version = true;
    return R::success(line);
  }
  Command command = Command::kPlan;
  if (!command_named(args[0], command)) {
    const std::string near = closest_names({"estimate", "plan", "sweep", "solve", "explain",
                                            "check", "models", "gpus", "dtypes", "engines"},
                                           {}, args[0], 1);
    return R::failure(
        make_error(kInvalidValue, "command",
                   "unknown command " + quote_user_text(args[0]) +
                       (near.empty() ? " (expected estimate, plan, sweep, solve, explain, check, "
                                       "models, gpus, dtypes or engines)"
                                     : " (did you mean " + near + "?)")));
  }
  ordered_json request{{"command", args[0]}};
  std::string request_file;
  std::vector<std::string> given;
  for (size_t i = 1; i < args.size(); ++i) {
    std::string flag = args[i], text;
    if (flag == "--json") {
      line.json = true;
      continue;
    }
    if (flag == "--help" || flag == "-h") {
      line.help = true;
      continue;
    }
    if (flag == "--request-schema") {
      line.request_schema = true;
      continue;
    }
    // check's launch command: the words after `--` as the shell split them, or one word as
    // pasted (a quoted command, with its own quotes and line breaks).
    if (command == Command::kCheck && flag == "--") {
      if (std::find(given.begin(), given.end(), "--launch") != given.end())
        return R::failure(usage_error("--launch", "given twice (--launch and --)"));
      given.emplace_back("--launch");
      slot(request, "launch") =
          i + 2 == args.size()
              ? args[i + 1]
              : shell_command(std::vector<std::string>(
                    args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end()));
      break;
    }
    // explain's log: its first word that is not a flag ("-" for standard input).
    if (command == Command::kExplain && (flag == "-" || flag.rfind("-", 0) != 0)) {
      text = flag;
      flag = "--log";
      const Field* log = field_of_flag(flag, command);
      if (std::find(given.begin(), given.end(), flag) != given.end())
        return R::failure(usage_error(flag, "one log at a time"));
      given.push_back(flag);
      Result<ordered_json> value = flag_value(*log, text, read_file);
      if (!value.ok) return R::failure(value.error);
      slot(request, log->key) = std::move(value.value);
      continue;
    }
    const size_t eq = flag.find('=');
    const bool inline_value = flag.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) {
      text = flag.substr(eq + 1);
      flag.resize(eq);
    }
    const Field* f = field_of_flag(flag, command);
    if (f == nullptr && flag != "--request") {
      std::vector<std::string> flags;
      for (const Field& known : fields())
        if (!known.flag.empty() && reads(known.commands, command)) flags.emplace_back(known.flag);
      const std::string near = closest_names(flags, {}, flag, 1);
      return R::failure(usage_error(
          flag, "unknown option " + quote_user_text(flag) +
                    (near.empty() ? " (see kvscope --help)" : " (did you mean " + near + "?)")));
    }
    const bool takes_value = f == nullptr || f->kind != Kind::kSwitch;
    if (takes_value && !inline_value) {
      if (i + 1 >= args.size()) return R::failure(usage_error(flag, "needs a value"));
      text = args[++i];
    }
    if (f != nullptr && f->kind == Kind::kOverrides) {
      const size_t sep = text.find('=');
      if (sep == std::string::npos || sep == 0)
        return R::failure(usage_error(flag, "expected FIELD=VALUE, got " + quote_user_text(text)));
      slot(request, f->key)[text.substr(0, sep)] = text.substr(sep + 1);
      continue;
    }
    const bool repeatable = f != nullptr && (f->kind == Kind::kTextList || f->kind == Kind::kNumberMap);
    if (!repeatable && std::find(given.begin(), given.end(), flag) != given.end())
      return R::failure(usage_error(flag, "given twice"));
    given.push_back(flag);
    if (f == nullptr) {
      request_file = text;
      continue;
    }
    Result<ordered_json> value = flag_value(*f, text, read_file);
    if (!value.ok) return R::failure(value.error);
    ordered_json& at = slot(request, f->key);
    if (f->kind == Kind::kTextList && at.is_array()) {
      for (ordered_json& x : value.value) at.push_back(std::move(x));
    } else if (f->kind == Kind::kNumberMap && at.is_object()) {
      at.update(value.value);
    } else {
      at = std::move(value.value);
    }
  }
  if (line.help) return R::success(line);
  if (line.request_schema) {
    if (args.size() != (line.json ? 3u : 2u))
      return R::failure(usage_error("--request-schema", "give --request-schema alone"));
    line.request.command = command;
    return R::success(line);
  }
  std::string json = request.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
  if (!request_file.empty()) {
    if (given.size() > 1) return R::failure(usage_error("--request", "give --request alone"));
    std::string reason;
    if (!read_file(request_file, json, reason))
      return R::failure(usage_error("--request", reason + ": " + quote_user_text(request_file)));
    line.from_request_file = true;
  }
  Result<Request> decoded = request_from_json(json, command);
  if (!decoded.ok) {
    return R::failure(line.from_request_file
                          ? decoded.error
                          : error_for_command_line(decoded.error, decoded.value));
  }
  line.request = std::move(decoded.value);
  return R::success(std::move(line));
}

Error error_for_command_line(Error e, const Request& request) {
  if (e.field.rfind("layers[", 0) == 0) return e;
  // A file's own errors ("config: not valid JSON at line 1") name the file instead, below.
  if (const Field* f = find_any_field(e.field);
      f != nullptr && !f->flag.empty() && f->kind != Kind::kFile) {
    if (e.message.rfind(e.field, 0) == 0)
      e.message = std::string(f->flag) + e.message.substr(e.field.size());
    e.field = std::string(f->flag);
    return e;
  }
  const std::string& name = request.input.model.config_name;
  if (!name.empty() && e.field != "command") e.message += " (in " + quote_user_text(name) + ")";
  return e;
}

}  // namespace kvscope
