// Imported models as bytes and back (how the page's first module carries the presets): every
// catalogue model and test config reads back to bytes that write the same, and to the same estimate.
#include "kvscope/model/preset_codec.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kvscope/model/catalog.hpp"
#include "kvscope/engines/context_limit.hpp"
#include "kvscope/kv/estimate.hpp"
#include "kvscope/request/report_json.hpp"

namespace kvscope {
namespace {

// What the engines derive from the shape alone: each one's context limit.
std::string context_limits(const ModelShape& shape) {
  std::string out;
  for (const ContextLimit& l : {vllm_context_limit(shape), sglang_context_limit(shape), llamacpp_context_limit(shape)})
    out += std::to_string(l.tokens) + " " + std::to_string(l.default_tokens) + " " + l.derived_from + " " + l.explanation + "\n";
  return out;
}

// The estimate of `model` as JSON, at a context long enough to reach every window.
std::string estimate_json(const ImportedModel& model) {
  EstimateInput in;
  in.context_tokens = 200000;
  in.batch = 3;
  ResolvedModel resolved;
  resolved.imported = model;
  const Result<EstimateReport> report = estimate(in, resolved);
  return report.ok ? report_to_json(report.value) : report.error.message;
}

void expect_round_trip(const std::string& name, const std::string& config_json) {
  const Result<ImportedModel> imported = import_config(config_json);
  if (!imported.ok) return;  // the hostile fixtures: nothing to carry
  const std::string bytes = encode_imported_model(imported.value);
  const Result<ImportedModel> back = decode_imported_model(bytes);
  ASSERT_TRUE(back.ok) << name;
  EXPECT_EQ(encode_imported_model(back.value), bytes) << name;
  EXPECT_EQ(estimate_json(back.value), estimate_json(imported.value)) << name;
  EXPECT_EQ(back.value.assumptions, imported.value.assumptions) << name;
  EXPECT_EQ(context_limits(back.value.shape), context_limits(imported.value.shape)) << name;
}

TEST(ImportedModelBytes, EveryPresetReadsBackTheSame) {
  for (const ModelEntry& m : model_catalog()) expect_round_trip(m.id, m.config_json);
}

TEST(ImportedModelBytes, EveryTestConfigReadsBackTheSame) {
  int read = 0;
  for (const char* folder : {"configs", "real-configs"}) {
    for (const auto& file : std::filesystem::directory_iterator(std::string(KVSCOPE_TEST_DATA_DIR) + "/" + folder)) {
      std::ifstream in(file.path());
      std::stringstream text;
      text << in.rdbuf();
      expect_round_trip(file.path().filename().string(), text.str());
      ++read;
    }
  }
  EXPECT_GT(read, 40);
}

TEST(ImportedModelBytes, ModelsOneAfterAnotherAreFoundByTheirPlace) {
  std::string all;
  std::vector<std::string> each;
  for (size_t i = 0; i < 3; ++i) {
    const Result<ImportedModel> imported = import_config(model_catalog()[i].config_json);
    ASSERT_TRUE(imported.ok);
    append_model_bytes(all, imported.value);
    each.push_back(encode_imported_model(imported.value));
  }
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(model_bytes_at(all, i), each[i]) << i;
  EXPECT_TRUE(model_bytes_at(all, 3).empty());
  EXPECT_TRUE(model_bytes_at(all.substr(0, all.size() - 1), 2).empty()) << "a cut last model";
}

TEST(ImportedModelBytes, RefusesBytesItDidNotWrite) {
  const Result<ImportedModel> imported = import_config(model_catalog().front().config_json);
  ASSERT_TRUE(imported.ok);
  const std::string bytes = encode_imported_model(imported.value);
  for (const std::string& broken : {bytes.substr(0, bytes.size() / 2), bytes + "x", std::string("\xff\xff\xff", 3)}) {
    const Result<ImportedModel> back = decode_imported_model(broken);
    EXPECT_FALSE(back.ok);
    EXPECT_EQ(back.error.code, kInternalError);
  }
}

}  // namespace
}  // namespace kvscope
