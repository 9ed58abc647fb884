// kvscope.request/1 read and written through the field table (request_fields.cpp).
#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/json_text.hpp"
#include "kvscope/request/request.hpp"
#include "request/request_fields.hpp"

namespace kvscope {

Request::Request() = default;

namespace {

using nlohmann::ordered_json;
using namespace request_fields;

constexpr size_t kMaxTextBytes = 64u << 10;
constexpr size_t kMaxFileBytes = 16u << 20;

const char* const kCommandNames[] = {"estimate", "plan",    "sweep", "models",  "gpus",
                                     "dtypes",   "engines", "solve", "explain", "check"};

Error bad(const Field& f, const std::string& detail) {
  return make_error(kInvalidValue, std::string(f.key), detail);
}

std::string shown(const ordered_json& v) {
  return quote_user_text(v.dump(-1, ' ', false, ordered_json::error_handler_t::replace));
}

// A whole number from a JSON number (4096 or 4096.0), or an error naming the field.
std::optional<Error> read_count(const Field& f, const ordered_json& v, uint64_t& out) {
  if (v.is_number_unsigned()) {
    out = v.get<uint64_t>();
  } else if (v.is_number_integer()) {
    return bad(f, "must be 0 or more, got " + shown(v));
  } else if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() &&
             v.get<double>() >= 0 && v.get<double>() < 1.8e19) {
    out = static_cast<uint64_t>(v.get<double>());
  } else {
    return bad(f, "expected a whole number, got " + shown(v));
  }
  if (out < f.min) return bad(f, "must be at least " + std::to_string(f.min));
  if (out > f.max) return bad(f, "must be at most " + std::to_string(f.max));
  return std::nullopt;
}

std::optional<Error> read_text(const Field& f, const ordered_json& v, size_t max,
                               std::string& out) {
  if (!v.is_string()) return bad(f, "expected a string, got " + shown(v));
  out = v.get<std::string>();
  if (out.size() > max) return bad(f, "longer than " + std::to_string(max) + " bytes");
  return std::nullopt;
}

std::optional<Error> read_file(const Field& f, const ordered_json& v, FileRef file) {
  if (!v.is_object() || !v.contains("text"))
    return bad(f, "expected {\"name\": ..., \"text\": ...} holding the file, got " + shown(v));
  for (const auto& [key, value] : v.items()) {
    if (key != "name" && key != "text")
      return bad(f, "unknown key " + quote_user_text(key) + " (expected name and text)");
    if (!value.is_string()) return bad(f, key + ": expected a string");
  }
  *file.text = v["text"].get<std::string>();
  if (file.text->empty()) return bad(f, "file is empty");
  if (file.text->size() > kMaxFileBytes) return bad(f, "file is larger than 16 MiB");
  const std::string name = v.value("name", std::string(f.key) + ".json");
  if (file.name != nullptr) *file.name = name.substr(0, 1024);
  return std::nullopt;
}

std::optional<Error> read_value(const Field& f, const ordered_json& v, Request& r) {
  struct Reader {
    const Field& f;
    const ordered_json& v;
    Request& r;
    std::optional<Error> operator()(std::string& (*at)(Request&)) const {
      std::string& out = at(r);
      if (f.kind == Kind::kJsonText && v.is_object()) {
        out = v.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
        return std::nullopt;
      }
      return read_text(f, v, kMaxTextBytes, out);
    }
    std::optional<Error> operator()(uint64_t& (*at)(Request&)) const {
      return read_count(f, v, at(r));
    }
    std::optional<Error> operator()(uint32_t& (*at)(Request&)) const {
      uint64_t count = 0;
      if (auto e = read_count(f, v, count)) return e;
      at(r) = static_cast<uint32_t>(count);  // the table's max keeps it in range
      return std::nullopt;
    }
    std::optional<Error> operator()(double& (*at)(Request&)) const {
      if (!v.is_number()) return bad(f, "expected a number, got " + shown(v));
      const double value = v.get<double>();
      at(r) = value * f.scale;
      return std::nullopt;
    }
    std::optional<Error> operator()(bool& (*at)(Request&)) const {
      if (!v.is_boolean()) return bad(f, "expected true or false, got " + shown(v));
      at(r) = v.get<bool>();
      return std::nullopt;
    }
    std::optional<Error> operator()(std::vector<double>& (*at)(Request&)) const {
      if (!v.is_array() || v.size() > 64) return bad(f, "expected at most 64 numbers");
      std::vector<double>& out = at(r);
      out.clear();
      for (const ordered_json& x : v) {
        if (!x.is_number() || x.get<double>() < 0)
          return bad(f, "expected numbers 0 or more, got " + shown(x));
        out.push_back(x.get<double>());
      }
      return std::nullopt;
    }
    std::optional<Error> operator()(FileRef (*at)(Request&)) const {
      return read_file(f, v, at(r));
    }
    std::optional<Error> operator()(std::vector<std::string>& (*at)(Request&)) const {
      if (!v.is_array() || v.size() > 64) return bad(f, "expected a list of at most 64 strings");
      std::vector<std::string>& out = at(r);
      out.clear();
      for (const ordered_json& x : v) {
        if (!x.is_string() || x.get<std::string>().empty() || x.get<std::string>().size() > 256)
          return bad(f, "expected names, got " + shown(x));
        out.push_back(x.get<std::string>());
      }
      return std::nullopt;
    }
    std::optional<Error> operator()(
        std::vector<std::pair<std::string, double>>& (*at)(Request&)) const {
      if (!v.is_object() || v.size() > 256) return bad(f, "expected an object of ID: number");
      auto& out = at(r);
      out.clear();
      for (const auto& [id, value] : v.items()) {
        if (!value.is_number())
          return bad(f, quote_user_text(id) + ": expected a number, got " + shown(value));
        out.emplace_back(id, value.get<double>());
      }
      return std::nullopt;
    }
    std::optional<Error> operator()(
        std::vector<std::pair<std::string, std::string>>& (*at)(Request&)) const {
      if (!v.is_object()) return bad(f, "expected an object of config.json fields");
      auto& out = at(r);
      out.clear();
      // A string is read as the command line reads FIELD=TEXT (JSON if it parses, else text).
      for (const auto& [field, value] : v.items())
        out.emplace_back(field,
                         value.is_string()
                             ? value.get<std::string>()
                             : value.dump(-1, ' ', false, ordered_json::error_handler_t::replace));
      return std::nullopt;
    }
  };
  if (v.is_null()) return std::nullopt;                   // null = the default, as if left out
  if (f.kind == Kind::kBytes || f.kind == Kind::kRate) {  // whole bytes (per second), 1 or more
    uint64_t bytes = 0;
    if (auto e = read_count(f, v, bytes)) return e;
    if (bytes == 0) return bad(f, "must be at least 1 byte");
  }
  return std::visit(Reader{f, v, r}, f.target);
}

// A key that can name itself in an error: letters, digits, _ and dots, 64 at most (anything else
// is quoted inside the message of the "request" field).
bool plain_key(const std::string& key) {
  return !key.empty() && key.size() <= 64 &&
         key.find_first_not_of(
             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") ==
             std::string::npos;
}

std::optional<Error> read_object(const ordered_json& object, const std::string& prefix,
                                 Command command, Request& r) {
  for (const auto& [name, value] : object.items()) {
    const std::string key = prefix + name;
    if (prefix.empty() && (name == "schema" || name == "command")) continue;
    if (const Field* f = find_field(key, command)) {
      if (auto e = read_value(*f, value, r)) return e;
      continue;
    }
    if (find_any_field(key) != nullptr) {
      std::string readers;
      for (const Field& g : fields()) {
        if (g.key != key) continue;
        for (int c = 0; c < static_cast<int>(std::size(kCommandNames)); ++c) {
          const std::string reader = kCommandNames[c];
          if (reads(g.commands, static_cast<Command>(c)) && readers.find(reader) == std::string::npos)
            readers += (readers.empty() ? "" : ", ") + reader;
        }
      }
      return make_error(kInvalidValue, key,
                        "not read by " + std::string(command_name(command)) + " (" + readers +
                            " only)");
    }
    bool is_group = false;
    for (const Field& f : fields()) is_group = is_group || f.key.rfind(key + ".", 0) == 0;
    if (is_group && value.is_object()) {
      if (auto e = read_object(value, key + ".", command, r)) return e;
      continue;
    }
    return plain_key(key)
               ? make_error(kInvalidValue, key, "unknown key (see kvscope.request/1)")
               : make_error(kInvalidValue, "request",
                            "unknown key " + quote_user_text(key) + " (see kvscope.request/1)");
  }
  return std::nullopt;
}

// What no single key can check: one model source; estimate's projection pair.
std::optional<Error> check_request(const Request& r) {
  const EstimateInput& m = r.input.model;
  if (r.command == Command::kCheck) {  // the launch names the model itself
    if (r.launch_text.empty())
      return make_error(kMissingField, "launch", "required: the launch command");
    if (!m.model_id.empty() && !m.config_json.empty())
      return make_error(kInvalidValue, "model", "give at most one of model (an id) or config");
    return std::nullopt;
  }
  if (r.command == Command::kExplain) {  // the log may name the model itself
    if (r.log_text.empty()) return make_error(kMissingField, "log", "required: the start-up log");
    if (!m.model_id.empty() && !m.config_json.empty())
      return make_error(kInvalidValue, "model", "give at most one of model (an id) or config");
    return std::nullopt;
  }
  if (m.model_id.empty() == m.config_json.empty())
    return make_error(kInvalidValue, "model",
                      "give exactly one of model (an id) or config (a file)");
  if (r.command == Command::kEstimate && (m.prompt_tokens == 0) != (m.output_tokens == 0)) {
    return m.prompt_tokens == 0
               ? make_error(kInvalidValue, "prompt_tokens", "required with output_tokens")
               : make_error(kInvalidValue, "output_tokens", "required with prompt_tokens");
  }
  return std::nullopt;
}

ordered_json value_json(const Field& f, Request& r) {
  struct Writer {
    const Field& f;
    Request& r;
    ordered_json operator()(std::string& (*at)(Request&)) const { return at(r); }
    ordered_json operator()(uint64_t& (*at)(Request&)) const { return at(r); }
    ordered_json operator()(uint32_t& (*at)(Request&)) const { return at(r); }
    ordered_json operator()(double& (*at)(Request&)) const { return at(r) / f.scale; }
    ordered_json operator()(bool& (*at)(Request&)) const { return at(r); }
    ordered_json operator()(std::vector<double>& (*at)(Request&)) const { return at(r); }
    ordered_json operator()(FileRef (*at)(Request&)) const {
      const FileRef file = at(r);
      if (file.text->empty()) return nullptr;
      ordered_json j;
      if (file.name != nullptr && !file.name->empty()) j["name"] = *file.name;
      j["text"] = *file.text;
      return j;
    }
    ordered_json operator()(
        std::vector<std::pair<std::string, std::string>>& (*at)(Request&)) const {
      ordered_json j = ordered_json::object();
      for (const auto& [field, value] : at(r)) j[field] = value;
      return j;
    }
    ordered_json operator()(std::vector<std::string>& (*at)(Request&)) const { return at(r); }
    ordered_json operator()(
        std::vector<std::pair<std::string, double>>& (*at)(Request&)) const {
      ordered_json j = ordered_json::object();
      for (const auto& [id, value] : at(r)) j[id] = value;
      return j;
    }
  };
  return std::visit(Writer{f, r}, f.target);
}

}  // namespace

std::string_view command_name(Command command) { return kCommandNames[static_cast<int>(command)]; }

bool command_named(std::string_view name, Command& out) {
  for (int i = 0; i < static_cast<int>(std::size(kCommandNames)); ++i) {
    if (name == kCommandNames[i]) {
      out = static_cast<Command>(i);
      return true;
    }
  }
  return false;
}

Result<Request> request_from_json(std::string_view json, Command command) {
  using R = Result<Request>;
  ordered_json j = parse_json(json);
  if (j.is_discarded() || !j.is_object())
    return R::failure(make_error(kInvalidJson, "request", "expected a JSON object"));
  if (j.contains("schema") && j["schema"] != kRequestSchema)
    return R::failure(make_error(kInvalidValue, "schema", "expected \"kvscope.request/1\""));
  if (j.contains("command")) {
    Command named = command;
    if (!j["command"].is_string() || !command_named(j["command"].get<std::string>(), named) ||
        named != command) {
      return R::failure(make_error(
          kInvalidValue, "command",
          "expected " + std::string(command_name(command)) + ", got " + shown(j["command"])));
    }
  }
  Request r;
  r.command = command;
  if (auto e = read_object(j, "", command, r)) return R::failure(*e);
  const bool lists = command == Command::kModels || command == Command::kGpus ||
                     command == Command::kDtypes || command == Command::kEngines;
  if (!lists) {
    if (auto e = check_request(r)) return R::failure(*e);
  }
  return R::success(std::move(r));
}

std::string request_to_json(const Request& request) {
  Request r = request;
  Request defaults;
  ordered_json j{{"schema", kRequestSchema}, {"command", command_name(r.command)}};
  for (const Field& f : fields()) {
    if (!reads(f.commands, r.command)) continue;
    const ordered_json value = value_json(f, r);
    if (value.is_null() || value == value_json(f, defaults)) continue;
    ordered_json* at = &j;
    std::string key(f.key);
    for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.')) {
      at = &(*at)[key.substr(0, dot)];
      key = key.substr(dot + 1);
    }
    (*at)[key] = value;
  }
  return j.dump(2, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace kvscope
