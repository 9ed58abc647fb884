// What the CLI prints of requests: its usage (generated from the field table) and a request as
// the `kvscope` words that give it (the page's "same numbers from the CLI" command).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/json_text.hpp"
#include "kvscope/request/command_line.hpp"
#include "kvscope/request/report_json.hpp"
#include "kvscope/base/units.hpp"
#include "request/request_fields.hpp"

namespace kvscope {
namespace {

using nlohmann::ordered_json;
using namespace request_fields;

const char* const kCommandHelp[][2] = {
    {"estimate", "KV-cache bytes per token, per sequence and for the batch, per layer group"},
    {"plan",
     "the engine's KV budget on a card, the tokens and sequences it holds, whether it "
     "starts, and the roofline"},
    {"sweep", "chart data: KV bytes and sequences vs context, decode vs batch, memory per GPU"},
    {"solve",
     "a target (--concurrency N at --context C) to the cheapest GPUs and layout per GPU type, "
     "with launch commands; exit 1 when none meets it"},
    {"explain",
     "a start-up log (FILE, or - for standard input): each figure it printed, reproduced and "
     "matched, and the plan it describes"},
    {"check",
     "a launch command as pasted (kvscope check [--gpu ID] -- vllm serve ...): starts or not "
     "and why, the changes that make it start, the flags kvscope does not model; exit 1 when "
     "it will not start"},
    {"models", "the model catalogue (ids for --model)"},
    {"gpus", "the GPU catalogue (ids for --gpu)"},
    {"dtypes", "KV-cache and weight dtypes with their exact storage cost"},
    {"engines", "the serving engines: their knobs (request keys), levers and workload"}};

// Bytes as the user would type them: 24GB, 80GiB, else the count.
std::string size_text(uint64_t bytes) {
  if (bytes >= 1000000000 && bytes % 1000000 == 0)
    return shortest_decimal(static_cast<double>(bytes) / 1e9) + "GB";
  if (bytes >= (uint64_t{1} << 30) && bytes % (uint64_t{1} << 20) == 0)
    return shortest_decimal(static_cast<double>(bytes) / (1u << 30)) + "GiB";
  return std::to_string(bytes);
}

// The flag words for one field's JSON value.
void add_flag_words(const Field& f, const ordered_json& v, std::vector<std::string>& out) {
  const std::string flag(f.flag);
  switch (f.kind) {
    case Kind::kSwitch:
      if (v.get<bool>() == f.flag_sets) out.push_back(flag);
      return;
    case Kind::kOverrides:
      for (const auto& [field, value] : v.items())
        out.insert(out.end(), {flag, field + "=" + value.get<std::string>()});
      return;
    case Kind::kFile:
      out.insert(out.end(), {flag, v.value("name", std::string(f.key) + ".json")});
      return;
    case Kind::kBytes:
      out.insert(out.end(), {flag, size_text(v.get<uint64_t>())});
      return;
    case Kind::kRate:
      out.insert(out.end(), {flag, shortest_decimal(v.get<double>() / 1e9) + "GB/s"});
      return;
    case Kind::kNumberList: {
      std::string list;
      for (const ordered_json& x : v)
        list += (list.empty() ? "" : ",") + shortest_decimal(x.get<double>());
      out.insert(out.end(), {flag, list});
      return;
    }
    case Kind::kTextList: {
      std::string list;
      for (const ordered_json& x : v) list += (list.empty() ? "" : ",") + x.get<std::string>();
      out.insert(out.end(), {flag, list});
      return;
    }
    case Kind::kNumberMap:
      for (const auto& [id, value] : v.items())
        out.insert(out.end(), {flag, id + "=" + shortest_decimal(value.get<double>())});
      return;
    case Kind::kNumber:
      out.insert(out.end(), {flag, shortest_decimal(v.get<double>())});
      return;
    case Kind::kCount:
      out.insert(out.end(), {flag, std::to_string(v.get<uint64_t>())});
      return;
    case Kind::kText:
    case Kind::kJsonText:
      out.insert(out.end(), {flag, v.get<std::string>()});
      return;
  }
}

// One field's JSON Schema: its type and the bounds request.cpp checks.
ordered_json field_schema(const Field& f) {
  ordered_json s;
  switch (f.kind) {
    case Kind::kText:
      s = {{"type", "string"}};
      break;
    case Kind::kJsonText:
      s = {{"type", {"object", "string"}}};
      break;
    case Kind::kCount:
    case Kind::kBytes:
    case Kind::kRate:
      s = {{"type", "integer"},
           {"minimum", f.kind == Kind::kCount ? f.min : std::max<uint64_t>(f.min, 1)}};
      if (f.max != UINT64_MAX) s["maximum"] = f.max;
      break;
    case Kind::kNumber:
      s = {{"type", "number"}};
      break;
    case Kind::kSwitch:
      s = {{"type", "boolean"}};
      break;
    case Kind::kFile:
      s = {{"type", "object"},
           {"properties",
            {{"name", {{"type", "string"}, {"description", "shown in messages"}}},
             {"text", {{"type", "string"}, {"minLength", 1}, {"description", "the content"}}}}},
           {"required", {"text"}},
           {"additionalProperties", false}};
      break;
    case Kind::kNumberList:
      s = {{"type", "array"}, {"items", {{"type", "number"}, {"minimum", 0}}}, {"maxItems", 64}};
      break;
    case Kind::kTextList:
      s = {{"type", "array"},
           {"items", {{"type", "string"}, {"minLength", 1}, {"maxLength", 256}}},
           {"maxItems", 64}};
      break;
    case Kind::kNumberMap:
      s = {{"type", "object"},
           {"additionalProperties", {{"type", "number"}}},
           {"maxProperties", 256}};
      break;
    case Kind::kOverrides:
      s = {{"type", "object"}};  // any JSON value per field, or its text
      break;
  }
  // The usage's "...; or:" (its next row is the alternative) reads on its own here.
  std::string description(f.help);
  if (description.size() >= 5 && description.compare(description.size() - 5, 5, "; or:") == 0)
    description.replace(description.size() - 5, 5, ", or instead the key after it");
  if (!f.flag.empty()) description += " (flag " + std::string(f.flag) + ")";
  s["description"] = description;
  return s;
}

}  // namespace

std::string request_schema(Command command) {
  ordered_json root{
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"title", std::string(kRequestSchema) + " for " + std::string(command_name(command))},
      {"type", "object"},
      {"properties",
       {{"schema", {{"const", kRequestSchema}}},
        {"command", {{"const", std::string(command_name(command))}}}}},
      {"additionalProperties", false}};
  for (const auto& [name, help] : kCommandHelp)
    if (name == command_name(command)) root["description"] = help;
  for (const Field& f : fields()) {
    if (!reads(f.commands, command)) continue;
    // "vllm.gpu_memory_utilization" is {"vllm": {"gpu_memory_utilization": ...}}.
    ordered_json* at = &root;
    std::string key(f.key);
    for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.')) {
      ordered_json& group = (*at)["properties"][key.substr(0, dot)];
      if (group.is_null())
        group = {{"type", "object"},
                 {"properties", ordered_json::object()},
                 {"additionalProperties", false}};
      at = &group;
      key = key.substr(dot + 1);
    }
    if (!(*at)["properties"].contains(key)) (*at)["properties"][key] = field_schema(f);
  }
  if (command == Command::kCheck) root["required"] = {"launch"};
  if (command == Command::kExplain) root["required"] = {"log"};
  return root.dump(2) + "\n";
}

std::string command_line_usage() {
  std::string text =
      "usage: kvscope <command> [options] [--json]\n"
      "       kvscope explain (FILE | -) [--model ID | --config FILE] [--gpu ID] [--json]\n"
      "       kvscope check [--gpu ID | --gpu-memory SIZE] [--config FILE] [--json] -- COMMAND...\n"
      "       kvscope <command> --request FILE [--json]   (a kvscope.request/1 file)\n"
      "       kvscope <command> --request-schema          (that file's JSON Schema)\n"
      "\ncommands:\n";
  for (const auto& [name, help] : kCommandHelp) {
    std::string line = std::string("  ") + name;
    line.resize(12, ' ');
    text += line + help + "\n";
  }
  text +=
      "\noptions (E estimate, P plan, S sweep, V solve, X explain, C check read them; the "
      "request key in brackets):\n";
  for (const Field& f : fields()) {
    if (f.flag.empty()) continue;
    std::string line =
        "  " + std::string(f.flag) + (f.metavar.empty() ? "" : " ") + std::string(f.metavar);
    line.resize(std::max<size_t>(line.size() + 1, 32), ' ');
    for (const auto& [c, letter] : {std::pair{Command::kEstimate, 'E'},
                                    {Command::kPlan, 'P'},
                                    {Command::kSweep, 'S'},
                                    {Command::kSolve, 'V'},
                                    {Command::kExplain, 'X'},
                                    {Command::kCheck, 'C'}})
      line += reads(f.commands, c) ? letter : '-';
    text += line + "  " + std::string(f.help) + " [" + std::string(f.key) + "]\n";
  }
  text +=
      "\nN accepts 128k = 131072; SIZE accepts 24GB, 80GiB, 13.5GB (GB = 10^9, GiB = 2^30);\n"
      "RATE is a size per second (1TB/s). Exit status: 0 success, 1 a target not met (plan\n"
      "--require-concurrency, solve), 2 bad input (one line on stderr naming the flag).\n";
  return text;
}

std::vector<std::string> command_line_arguments(const Request& request) {
  std::vector<std::string> out{std::string(command_name(request.command))};
  const ordered_json j = parse_json(request_to_json(request));
  for (const Field& f : fields()) {
    if (f.flag.empty() || !reads(f.commands, request.command)) continue;
    const ordered_json* at = &j;
    std::string key(f.key);
    for (size_t dot = key.find('.'); at != nullptr && dot != std::string::npos;
         dot = key.find('.')) {
      at = at->contains(key.substr(0, dot)) ? &(*at)[key.substr(0, dot)] : nullptr;
      key = key.substr(dot + 1);
    }
    if (at != nullptr && at->contains(key)) add_flag_words(f, (*at)[key], out);
  }
  return out;
}

Answer command_line_answer(std::string_view command, std::string_view request_json) {
  Command c = Command::kPlan;
  if (!command_named(command, c)) {
    const Error e =
        make_error(kInvalidValue, "command", "unknown command " + quote_user_text(command));
    return Answer{2, error_to_json(e), e};
  }
  const Result<Request> request = request_from_json(request_json, c);
  if (!request.ok) return Answer{2, error_to_json(request.error), request.error};
  return Answer{0, ordered_json(command_line_arguments(request.value)).dump(), {}};
}

}  // namespace kvscope
