// config.json as Python's json module writes it: bare NaN, Infinity and -Infinity import, and are
// numbers only where a field needs a number (where they are refused by name); broken JSON still
// gets one line naming the line and column of the user's own text.
#include <gtest/gtest.h>

#include <string>

#include "test_support.hpp"

namespace kvscope {
namespace {

const std::string kShape =
    R"("num_hidden_layers": 2, "hidden_size": 256, "num_attention_heads": 4, )"
    R"("vocab_size": 1000, "max_position_embeddings": 4096)";

Result<ImportedModel> import_with(const std::string& extra) {
  return import_config("{" + kShape + ", " + extra + "}");
}

TEST(PythonJson, NonFiniteLiteralsInFieldsNobodyReadsImport) {
  for (const char* extra : {R"("time_step_limit": [0.0, Infinity])", R"("rope_theta": NaN)",
                            R"("floor": -Infinity)", R"("x": {"y": [NaN, -Infinity, Infinity]})"}) {
    const Result<ImportedModel> r = import_with(extra);
    EXPECT_TRUE(r.ok) << extra << ": " << r.error.message;
    EXPECT_EQ(r.value.shape.layers.size(), 2u);
  }
}

TEST(PythonJson, NonFiniteWhereANumberIsNeededIsRefusedByName) {
  const Result<ImportedModel> r =
      import_config(R"({"num_hidden_layers": Infinity, "hidden_size": 256})");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.code, kInvalidValue);
  EXPECT_EQ(r.error.field, "num_hidden_layers");
  EXPECT_EQ(r.error.message, "num_hidden_layers: expected a whole number, got Infinity");
  const Result<ImportedModel> nan = import_with(R"("head_dim": NaN)");
  ASSERT_FALSE(nan.ok);
  EXPECT_EQ(nan.error.message, "head_dim: expected a whole number, got NaN");
}

TEST(PythonJson, NonFiniteIsNotAString) {
  const Result<ImportedModel> r = import_with(R"("model_type": -Infinity)");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.message, "model_type: expected a string such as \"llama\", got -Infinity");
  const Result<ImportedModel> pattern =
      import_config("{" + kShape + R"(, "hybrid_override_pattern": Infinity})");
  ASSERT_FALSE(pattern.ok);
  EXPECT_EQ(pattern.error.message, "hybrid_override_pattern: expected a string, got Infinity");
}

TEST(PythonJson, WordsThatOnlyContainTheLiteralsAreLeftAlone) {
  // Inside strings, and as part of a longer bare word, nothing is replaced.
  const Result<ImportedModel> in_string = import_with(R"("note": "Infinity and NaN, -Infinity")");
  EXPECT_TRUE(in_string.ok) << in_string.error.message;
  const Result<ImportedModel> escaped = import_with(R"("note": "a \"NaN\" Infinity")");
  EXPECT_TRUE(escaped.ok) << escaped.error.message;
  for (const char* extra : {R"("x": Infinityx)", R"("x": NaNa)", R"("x": nan)", R"("x": inf)"}) {
    const Result<ImportedModel> r = import_with(extra);
    ASSERT_FALSE(r.ok) << extra;
    EXPECT_EQ(r.error.code, kInvalidJson) << extra;
  }
}

TEST(PythonJson, SyntaxErrorsGiveLineAndColumnOfTheOriginalText) {
  // The Infinity before the error is longer once marked; the column must not move.
  const Result<ImportedModel> r = import_config("{\"a\": [Infinity, NaN], \"b\": }");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.field, "config");
  EXPECT_EQ(r.error.message.find("config: not valid JSON at line 1, column 29: "), 0u)
      << r.error.message;
  const Result<ImportedModel> second_line =
      import_config("{\"a\": -Infinity,\n  \"b\": [1, 2,, 3]}");
  ASSERT_FALSE(second_line.ok);
  EXPECT_EQ(second_line.error.message.find("config: not valid JSON at line 2, column 14: "), 0u)
      << second_line.error.message;
  EXPECT_EQ(second_line.error.message.find('\n'), std::string::npos);
  EXPECT_EQ(second_line.error.message.find("ue000"), std::string::npos);
}

TEST(PythonJson, OverridesKeepTheLiteralsAndAcceptThemAsValues) {
  const std::string config = "{" + kShape + R"(, "time_step_limit": [0.0, Infinity]})";
  const Result<std::string> changed =
      apply_config_overrides(config, {{"rope_theta", "NaN"}, {"num_hidden_layers", "3"}});
  ASSERT_TRUE(changed.ok) << changed.error.message;
  const Result<ImportedModel> r = import_config(changed.value);
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(r.value.shape.layers.size(), 3u);
  const Result<std::string> infinite =
      apply_config_overrides(config, {{"num_hidden_layers", "Infinity"}});
  ASSERT_TRUE(infinite.ok);
  const Result<ImportedModel> refused = import_config(infinite.value);
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(refused.error.message, "num_hidden_layers: expected a whole number, got Infinity");
}

}  // namespace
}  // namespace kvscope
