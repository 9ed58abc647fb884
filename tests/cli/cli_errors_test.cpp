// The kvscope CLI's bad-input contract, run in-process: exit status 2 and one line on stderr that
// names the flag or field (and suggests what a mistyped one meant), also as JSON with --json.
#include <gtest/gtest.h>

#include <algorithm>

#include "cli_run.hpp"

namespace kvscope::cli {
namespace {

struct BadRun {
  const char* name;
  std::vector<std::string> args;
  const char* field;
};
void PrintTo(const BadRun& c, std::ostream* os) { *os << c.name; }

class CliBadInput : public ::testing::TestWithParam<BadRun> {};

TEST_P(CliBadInput, ExitsTwoWithOneLineNamingTheField) {
  const BadRun& c = GetParam();
  const CliRun r = kvscope(c.args);
  EXPECT_EQ(r.status, 2) << r.out;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // exactly one line
  EXPECT_EQ(r.err.rfind(std::string("kvscope: error: ") + c.field + ": ", 0), 0u) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    All, CliBadInput,
    ::testing::Values(
        BadRun{
            "negative_batch", {"estimate", "--model", "llama-3.1-8b", "--batch", "-3"}, "--batch"},
        BadRun{"zero_batch", {"estimate", "--model", "llama-3.1-8b", "--batch", "0"}, "--batch"},
        BadRun{"word_context",
               {"estimate", "--model", "llama-3.1-8b", "--context", "lots"},
               "--context"},
        BadRun{"huge_context",
               {"estimate", "--model", "llama-3.1-8b", "--context", "1000000000000000"},
               "--context"},
        BadRun{"overflowing_number",
               {"estimate", "--model", "llama-3.1-8b", "--context", "99999999999999999999"},
               "--context"},
        BadRun{"unknown_dtype",
               {"estimate", "--model", "llama-3.1-8b", "--kv-dtype", "fp7"},
               "--kv-dtype"},
        BadRun{"unknown_model", {"estimate", "--model", "llama-9"}, "--model"},
        BadRun{"no_model", {"estimate", "--context", "10"}, "--model"},
        BadRun{"both_sources",
               {"estimate", "--model", "llama-2-7b", "--config", "good.json"},
               "--model"},
        BadRun{"missing_file", {"estimate", "--config", "nope.json"}, "--config"},
        BadRun{"empty_file", {"estimate", "--config", "empty.json"}, "--config"},
        BadRun{"broken_json", {"estimate", "--config", "broken.json"}, "config"},
        BadRun{"zero_heads", {"estimate", "--config", "zero_heads.json"}, "num_attention_heads"},
        BadRun{"unknown_flag", {"estimate", "--model", "llama-2-7b", "--contxt", "5"}, "--contxt"},
        BadRun{"missing_value", {"estimate", "--model"}, "--model"},
        BadRun{"repeated_flag", {"estimate", "--model", "a", "--model", "b"}, "--model"},
        BadRun{"prefix_over_context",
               {"estimate", "--model", "llama-2-7b", "--context", "10", "--shared-prefix", "11"},
               "--shared-prefix"},
        BadRun{"output_without_prompt",
               {"estimate", "--model", "llama-2-7b", "--output-tokens", "5"},
               "--prompt-tokens"},
        BadRun{"unknown_command", {"estimat"}, "command"},
        BadRun{"plan_utilization_negative",
               {"plan", "--model", "llama-2-7b", "--gpu", "l4", "--gpu-memory-utilization", "-0.5"},
               "--gpu-memory-utilization"},
        BadRun{"plan_utilization_high",
               {"plan", "--model", "llama-2-7b", "--gpu", "l4", "--gpu-memory-utilization", "1.2"},
               "--gpu-memory-utilization"},
        BadRun{"plan_bad_size",
               {"plan", "--model", "llama-2-7b", "--gpu-memory", "24 gigs"},
               "--gpu-memory"},
        BadRun{"plan_no_memory", {"plan", "--model", "llama-2-7b"}, "--gpu"},
        BadRun{"plan_unknown_gpu", {"plan", "--model", "llama-2-7b", "--gpu", "h1000"}, "--gpu"},
        BadRun{"plan_tp_not_dividing_heads",
               {"plan", "--model", "llama-2-7b", "--gpu", "l4", "--tp", "3"},
               "--tp"},
        BadRun{"plan_unknown_engine",
               {"plan", "--model", "llama-2-7b", "--gpu", "l4", "--engine", "tgi"},
               "--engine"},
        BadRun{"plan_bad_bandwidth",
               {"plan", "--model", "llama-2-7b", "--gpu-memory", "24GB", "--gpu-bandwidth", "fast"},
               "--gpu-bandwidth"},
        BadRun{"plan_huge_bandwidth",
               {"plan", "--model", "llama-2-7b", "--gpu-memory", "24GB", "--gpu-bandwidth",
                "2000TB/s"},
               "--gpu-bandwidth"},
        BadRun{"plan_negative_tflops",
               {"plan", "--model", "llama-2-7b", "--gpu-memory", "24GB", "--gpu-tflops", "-1"},
               "--gpu-tflops"},
        // fuzz_cli found this crash: invalid UTF-8 in a --set value made the JSON dump throw.
        BadRun{"plan_set_invalid_utf8",
               {"plan", "--model", "llama-3.1-8b", "--gpu", "l4", "--set",
                "num_key_value_heads=1\x99"},
               "num_key_value_heads"},
        BadRun{"plan_bad_set",
               {"plan", "--model", "llama-2-7b", "--gpu", "l4", "--set", "novalue"},
               "--set"}),
    [](const ::testing::TestParamInfo<BadRun>& info) { return info.param.name; });

// A mistyped command, flag or id suggests what was meant: prefixes and substrings before edits.
TEST(Cli, MistypesSuggestWhatWasMeant) {
  EXPECT_NE(kvscope({"pln"}).err.find("unknown command \"pln\" (did you mean plan?)"), std::string::npos);
  EXPECT_NE(kvscope({"plan", "--modle", "llama-3.1-8b"}).err.find("(did you mean --model?)"),
            std::string::npos);
  const CliRun gpu = kvscope({"plan", "--model", "llama-3.1-8b", "--gpu", "h100"});
  EXPECT_NE(gpu.err.find("did you mean h100-"), std::string::npos) << gpu.err;
  EXPECT_EQ(gpu.err.find("a10"), std::string::npos) << gpu.err;
  const CliRun model = kvscope({"plan", "--model", "lama-3.1-8b", "--gpu", "l4"});
  EXPECT_NE(model.err.find("did you mean llama-3.1-8b"), std::string::npos) << model.err;
  EXPECT_EQ(kvscope({"plan", "--zzzzzzzz", "1"}).err.find("did you mean"), std::string::npos);
}

TEST(Cli, JsonErrorsAlsoGoToStdout) {
  const CliRun r = kvscope({"estimate", "--model", "llama-3.1-8b", "--kv-dtype", "nope", "--json"});
  EXPECT_EQ(r.status, 2);
  const nlohmann::json j = json_of(r);
  EXPECT_EQ(j["error"]["field"], "--kv-dtype");
  EXPECT_EQ(j["error"]["code"], "invalid_value");
}

TEST(Cli, ConfigErrorsNameTheFile) {
  const CliRun r = kvscope({"estimate", "--config", "zero_heads.json"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(
      r.err,
      "kvscope: error: num_attention_heads: must be at least 1, got 0 (in \"zero_heads.json\")\n");
}

TEST(Cli, ExplainErrorsNameTheFieldInOneLine) {
  const CliRun no_model = kvscope({"explain", "vllm-20k.log"});
  EXPECT_EQ(no_model.status, 2);
  EXPECT_NE(no_model.err.find("--model"), std::string::npos) << no_model.err;
  const CliRun binary = kvscope({"explain", "binary.log", "--model", "llama-3.1-8b"});
  EXPECT_EQ(binary.status, 2);
  EXPECT_NE(binary.err.find("log"), std::string::npos) << binary.err;
  const CliRun missing = kvscope({"explain", "--model", "llama-3.1-8b"});
  EXPECT_EQ(missing.status, 2);
  for (const CliRun* r : {&no_model, &binary, &missing})
    EXPECT_EQ(std::count(r->err.begin(), r->err.end(), '\n'), 1) << r->err;
}

}  // namespace
}  // namespace kvscope::cli
