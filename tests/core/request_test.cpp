// kvscope.request/1: the golden requests answered as the files under tests/data/requests/ say
// (the module's node test holds its answers against the same files), the codec's checks naming
// the key, and the command line reading the same request.
#include "kvscope/request/request.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "kvscope/request/command_line.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

using nlohmann::json;

Command command_of(const json& request) {
  Command c = Command::kPlan;
  EXPECT_TRUE(command_named(request.at("command").get<std::string>(), c));
  return c;
}

TEST(Request, GoldenRequestsGiveTheirExpectedAnswers) {
  size_t checked = 0;
  const std::filesystem::path dir = std::filesystem::path(KVSCOPE_TEST_DATA_DIR) / "requests";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const std::string suffix = ".request.json";
    if (name.size() <= suffix.size() || name.substr(name.size() - suffix.size()) != suffix)
      continue;
    const std::string stem = name.substr(0, name.size() - suffix.size());
    const std::string text = test::read_data("requests/" + name);
    const Answer a = answer_json(command_of(json::parse(text)), text);
    const json expected = json::parse(test::read_data("requests/" + stem + ".expected.json"));
    EXPECT_EQ(json::parse(a.json), expected) << stem;
    EXPECT_EQ(a.status, expected.contains("error") ? 2 : 0) << stem;
    ++checked;
  }
  EXPECT_GE(checked, 8u);
}

// Each command group's answerer gives what answer() gives for its commands (the modules bind
// them one by one), and the sizing one refuses the commands of the others as an internal failure.
TEST(Request, EachGroupAnswersItsCommandsAsAnswerDoes) {
  const std::filesystem::path dir = std::filesystem::path(KVSCOPE_TEST_DATA_DIR) / "requests";
  size_t sizing = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".request.json") == std::string::npos) continue;
    const std::string text = test::read_data("requests/" + name);
    const Command c = command_of(json::parse(text));
    const Answerer group = c == Command::kSolve     ? answer_solve
                           : c == Command::kExplain ? answer_explain
                                                    : answer_sizing;
    const Answer a = answer_json(c, text, group);
    EXPECT_EQ(a.json, answer_json(c, text).json) << name;
    sizing += group == answer_sizing ? 1 : 0;
  }
  EXPECT_GE(sizing, 8u);
  const Answer refused = answer_json(
      Command::kSolve, R"({"model": "qwen3-8b", "concurrency": 8, "context_tokens": 8192})",
      answer_sizing);
  EXPECT_EQ(refused.status, 70);
  EXPECT_EQ(refused.error.code, kInternalError);
  EXPECT_EQ(refused.error.field, "command");
  EXPECT_EQ(refused.error.message, "command: solve is not a sizing command");
}

TEST(Request, GoldenAnswersHoldTheSeedNumbers) {
  const json article =
      json::parse(test::read_data("requests/article2-llama-3.1-8b-24gb.expected.json"));
  EXPECT_FALSE(article["starts"].get<bool>());
  EXPECT_EQ(article["max_model_len_that_fits"], 31488);  // the 24 GB card of article 2
  const json seed =
      json::parse(test::read_data("requests/seed-llama-3.1-8b-estimate.expected.json"));
  EXPECT_EQ(seed["kv_bytes_per_token"], 2 * 32 * 8 * 128 * 2);
  EXPECT_EQ(seed["kv_bytes_total"], uint64_t{4} * 131072 * 131072);
}

Request decoded(const std::string& text, Command c = Command::kPlan) {
  const Result<Request> r = request_from_json(text, c);
  EXPECT_TRUE(r.ok) << r.error.message;
  return r.value;
}

Error refused(const std::string& text, Command c = Command::kPlan) {
  const Result<Request> r = request_from_json(text, c);
  EXPECT_FALSE(r.ok) << text;
  EXPECT_EQ(r.error.message.find('\n'), std::string::npos);
  return r.error;
}

TEST(Request, KeysLandInTheirEngineOptions) {
  const Request r = decoded(R"({"model": "qwen3-32b", "gpu": "h100-sxm-80gb",
      "vllm": {"gpu_memory_utilization": 0.95, "max_num_batched_tokens": 4096},
      "sglang": {"disable_radix_cache": true}, "llama_cpp": {"tensor_split": [3, 1]},
      "gpu_dense_tflops": 989.5, "context_tokens": 32768, "set": {"num_key_value_heads": 4,
      "rope_scaling": {"type": "yarn", "factor": 4}, "model_type": "qwen3"}})");
  EXPECT_DOUBLE_EQ(r.input.vllm.gpu_memory_utilization, 0.95);
  EXPECT_EQ(r.input.vllm.max_num_batched_tokens, 4096u);
  EXPECT_TRUE(r.input.sglang.disable_radix_cache);
  EXPECT_EQ(r.input.llama_cpp.tensor_split, (std::vector<double>{3, 1}));
  EXPECT_DOUBLE_EQ(r.input.gpu_dense_flops, 989.5e12);  // TFLOP/s in the request
  EXPECT_EQ(r.input.model.context_tokens, 32768u);
  ASSERT_EQ(r.input.overrides.size(), 3u);
  EXPECT_EQ(r.input.overrides[0].second, "4");
  EXPECT_EQ(r.input.overrides[1].second, R"({"type":"yarn","factor":4})");
  EXPECT_EQ(r.input.overrides[2].second, "qwen3");  // a string is read as FIELD=TEXT
}

TEST(Request, EncodingAndDecodingAgree) {
  const std::string text = test::read_data("requests/llama-cpp-split-two-cards.request.json");
  const Request r = decoded(text);
  const std::string written = request_to_json(r);
  EXPECT_EQ(json::parse(written), json::parse(text));  // only what differs from the defaults
  EXPECT_EQ(request_to_json(decoded(written)), written);
}

TEST(Request, BadValuesNameTheirKey) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"model": "llama-3.1-8b", "context_tokens": -5})", "context_tokens"},
      {R"({"model": "llama-3.1-8b", "context_tokens": 0})", "context_tokens"},
      {R"({"model": "llama-3.1-8b", "context_tokens": "4096"})", "context_tokens"},
      {R"({"model": "llama-3.1-8b", "batch": 2.5})", "batch"},
      {R"({"model": "llama-3.1-8b", "tensor_parallel": 70000})", "tensor_parallel"},
      {R"({"model": "llama-3.1-8b", "vllm": {"gpu_memory_utilization": "high"}})",
       "vllm.gpu_memory_utilization"},
      {R"({"model": "llama-3.1-8b", "vllm": {"gpu_memory_utilisation": 0.9}})",
       "vllm.gpu_memory_utilisation"},
      {R"({"model": "llama-3.1-8b", "vllm": 0.9})", "vllm"},
      {R"({"model": "llama-3.1-8b", "gpu_memory": "24GB"})", "gpu_memory"},
      {R"({"model": "llama-3.1-8b", "allow_long_context": 1})", "allow_long_context"},
      {R"({"model": "llama-3.1-8b", "config": {"text": "{}"}})", "model"},
      {R"({"config": {"name": "c.json", "text": ""}})", "config"},
      {R"({"config": "config.json"})", "config"},
      {R"({"model": "llama-3.1-8b", "llama_cpp": {"tensor_split": [1, -2]}})",
       "llama_cpp.tensor_split"},
      {R"({"model": "llama-3.1-8b", "sweep": {"points": 8}})", "sweep.points"},
      {R"({"model": "llama-3.1-8b", "gpu_bandwidth_bytes_per_s": 0})", "gpu_bandwidth_bytes_per_s"},
      {R"({"schema": "kvscope.request/2", "model": "llama-3.1-8b"})", "schema"},
      {R"({"command": "estimate", "model": "llama-3.1-8b"})", "command"},
      {R"([1, 2])", "request"},
      {R"({"model": )", "request"},
      {R"({"model": "llama-3.1-8b"} {})", "request"},  // text after the object is not JSON
      {"", "request"},
  };
  for (const auto& [text, field] : cases) EXPECT_EQ(refused(text).field, field) << text;
  // Found by fuzz_request: a key with a newline (or markup) is quoted, never echoed as the field.
  const Error odd = refused("{\"model\": \"llama-3.1-8b\", \"gpu\\n<b>\": 1}");
  EXPECT_EQ(odd.field, "request");
  EXPECT_EQ(odd.message, R"(request: unknown key "gpu\x0a\x3cb\x3e" (see kvscope.request/1))");
  EXPECT_EQ(refused(R"({"model": "llama-3.1-8b", "engine": "vllm"})", Command::kEstimate).message,
            "engine: not read by estimate (plan, sweep, solve only)");
  EXPECT_EQ(refused(R"({"model": "llama-3.1-8b", "prompt_tokens": 5})", Command::kEstimate).field,
            "output_tokens");
}

TEST(Request, NullIsTheDefault) {
  const Request r = decoded(
      R"({"model": "llama-3.1-8b", "gpu": null, "vllm": {"gpu_memory_utilization": null}})");
  EXPECT_DOUBLE_EQ(r.input.vllm.gpu_memory_utilization, VllmOptions{}.gpu_memory_utilization);
}

const FileReader kFiles = [](const std::string& path, std::string& content, std::string& error) {
  if (path != "tiny.json") {
    error = "cannot open file";
    return false;
  }
  content = R"({"num_hidden_layers": 2, "hidden_size": 256, "num_attention_heads": 4})";
  return true;
};

TEST(CommandLine, FlagsReadIntoTheSameRequest) {
  const Result<CommandLine> line = parse_command_line(
      {"plan", "--config", "tiny.json", "--gpu-memory", "24GB", "--gpu-memory-utilization=0.95",
       "--context", "128k", "--no-kv-unified", "--set", "num_key_value_heads=2", "--tensor-split",
       "3,1", "--gpu-bandwidth", "1TB/s", "--json"},
      kFiles);
  ASSERT_TRUE(line.ok) << line.error.message;
  EXPECT_TRUE(line.value.json);
  const Request& r = line.value.request;
  EXPECT_EQ(r.input.model.config_name, "tiny.json");
  EXPECT_EQ(r.input.gpu_memory_bytes, 24000000000u);
  EXPECT_EQ(r.input.model.context_tokens, 131072u);
  EXPECT_FALSE(r.input.llama_cpp.kv_unified);
  EXPECT_DOUBLE_EQ(r.input.gpu_bandwidth_bytes_per_s, 1e12);
  EXPECT_EQ(r.input.overrides.front(),
            (std::pair<std::string, std::string>{"num_key_value_heads", "2"}));
  // Written back as flags, the request reads in again unchanged.
  const std::vector<std::string> args = command_line_arguments(r);
  EXPECT_EQ(args.front(), "plan");
  const Result<CommandLine> again = parse_command_line(args, kFiles);
  ASSERT_TRUE(again.ok) << again.error.message;
  EXPECT_EQ(request_to_json(again.value.request), request_to_json(r));
}

TEST(CommandLine, ErrorsNameTheFlag) {
  const std::pair<std::vector<std::string>, const char*> cases[] = {
      {{"plan", "--model", "llama-3.1-8b", "--context", "0"}, "--context"},
      {{"plan", "--model", "llama-3.1-8b", "--tp", "70000"}, "--tp"},
      {{"plan", "--model", "llama-3.1-8b", "--gpu-memory", "lots"}, "--gpu-memory"},
      {{"plan", "--model", "llama-3.1-8b", "--gpu-memory-utilization", "x"},
       "--gpu-memory-utilization"},
      {{"plan", "--model", "llama-3.1-8b", "--set", "novalue"}, "--set"},
      {{"plan", "--model", "llama-3.1-8b", "--batch", "2", "--batch", "3"}, "--batch"},
      {{"plan", "--model", "llama-3.1-8b", "--gpu"}, "--gpu"},
      {{"estimate", "--model", "llama-3.1-8b", "--engine", "vllm"}, "--engine"},
      {{"plan", "--config", "missing.json"}, "--config"},
      {{"plan", "--model", "a", "--config", "tiny.json"}, "--model"},
      {{"plan", "--request", "x.json", "--model", "a"}, "--request"},
      {{"serve"}, "command"},
  };
  for (const auto& [args, field] : cases) {
    const Result<CommandLine> line = parse_command_line(args, kFiles);
    ASSERT_FALSE(line.ok) << args.back();
    EXPECT_EQ(line.error.field, field) << line.error.message;
    EXPECT_EQ(line.error.message.rfind(field, 0), 0u) << line.error.message;
  }
}

TEST(CommandLine, UsageListsEveryFlagWithItsKey) {
  const std::string usage = command_line_usage();
  for (const char* expected :
       {"--gpu-memory-utilization F", "[vllm.gpu_memory_utilization]", "--no-kv-unified",
        "[llama_cpp.kv_unified]", "--context N", "[context_tokens]", "--request FILE"}) {
    EXPECT_NE(usage.find(expected), std::string::npos) << expected;
  }
}

// Each leaf of a command's schema is a key the command reads: a value of a type the schema rules
// out is refused naming that key (not as unknown, not as read by another command).
TEST(RequestSchema, EachKeyItNamesIsReadWithItsType) {
  for (const Command c : {Command::kEstimate, Command::kPlan, Command::kSweep, Command::kSolve,
                          Command::kExplain, Command::kCheck}) {
    const json schema = json::parse(request_schema(c));
    EXPECT_EQ(schema.at("properties").at("command").at("const"), command_name(c));
    size_t leaves = 0;
    const std::function<void(const json&, const std::string&)> walk =
        [&](const json& object, const std::string& prefix) {
          for (const auto& [name, property] : object.at("properties").items()) {
            if (prefix.empty() && (name == "schema" || name == "command")) continue;
            const std::string key = prefix + name;
            if (!property.contains("description")) {  // a group: "vllm", "llama_cpp"
              walk(property, key + ".");
              continue;
            }
            const json type = property.at("type");
            const bool takes_text = type == "string" || (type.is_array() && type.size() == 2);
            json request = json::parse(R"({"schema": "kvscope.request/1"})");
            json::json_pointer at("/" + [&] {
              std::string path = key;
              for (char& ch : path) ch = ch == '.' ? '/' : ch;
              return path;
            }());
            request[at] = takes_text ? json(12345) : json("not this type");
            const Result<Request> r = request_from_json(request.dump(), c);
            ASSERT_FALSE(r.ok) << command_name(c) << " " << key;
            EXPECT_EQ(r.error.field, key) << command_name(c) << ": " << r.error.message;
            EXPECT_EQ(r.error.message.find("unknown key"), std::string::npos) << key;
            EXPECT_EQ(r.error.message.find("not read by"), std::string::npos) << key;
            ++leaves;
          }
        };
    walk(schema, "");
    EXPECT_GE(leaves, 8u) << command_name(c);
    EXPECT_EQ(schema.value("required", json::array()).size(),
              c == Command::kCheck || c == Command::kExplain ? 1u : 0u);
  }
}

TEST(RequestSchema, CommandLinePrintsItAlone) {
  const auto read_nothing = [](const std::string&, std::string&, std::string&) { return false; };
  const Result<CommandLine> line = parse_command_line({"solve", "--request-schema"}, read_nothing);
  ASSERT_TRUE(line.ok) << line.error.message;
  EXPECT_TRUE(line.value.request_schema);
  EXPECT_EQ(line.value.request.command, Command::kSolve);
  const Result<CommandLine> mixed =
      parse_command_line({"plan", "--request-schema", "--model", "llama-3.1-8b"}, read_nothing);
  ASSERT_FALSE(mixed.ok);
  EXPECT_EQ(mixed.error.field, "--request-schema");
}

}  // namespace
}  // namespace kvscope
