// The catalogues: size, coverage of families, provenance, and that every model imports cleanly.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "test_support.hpp"

namespace kvscope {
namespace {

TEST(Catalog, AtLeastThirtyModelsAllImportWithASource) {
  const std::vector<ModelEntry>& models = model_catalog();
  EXPECT_GE(models.size(), 30u);
  std::set<std::string> ids;
  const std::regex id_form("[a-z0-9][a-z0-9.-]*");
  for (const ModelEntry& m : models) {
    EXPECT_TRUE(ids.insert(m.id).second) << "duplicate id " << m.id;
    EXPECT_TRUE(std::regex_match(m.id, id_form)) << m.id;
    EXPECT_FALSE(m.name.empty()) << m.id;
    EXPECT_EQ(m.source.rfind("https://", 0), 0u) << m.id;
    const Result<ImportedModel> imported = import_config(m.config_json);
    EXPECT_TRUE(imported.ok) << m.id << ": " << imported.error.message;
    if (imported.ok) EXPECT_FALSE(imported.value.shape.layers.empty()) << m.id;
  }
}

TEST(Catalog, CoversTheFamiliesUsersAskFor) {
  for (const char* id : {"llama-2-7b",
                         "llama-3.1-8b",
                         "llama-3.2-1b",
                         "llama-4-scout-17b-16e",
                         "mistral-7b-v0.1",
                         "mixtral-8x7b",
                         "qwen2.5-7b",
                         "qwen3-8b",
                         "qwen3-30b-a3b",
                         "qwen3-next-80b-a3b",
                         "gemma-2-9b",
                         "gemma-3-27b",
                         "deepseek-v2-lite",
                         "deepseek-v3",
                         "gpt-oss-20b",
                         "phi-3-mini-4k",
                         "phi-4",
                         "falcon-7b",
                         "jamba-v0.1",
                         "command-r",
                         "yi-34b"}) {
    EXPECT_TRUE(find_model(id).ok) << id;
  }
}

TEST(Catalog, AtLeastFifteenGpusWithReportedMemoryAndPeaks) {
  const std::vector<GpuEntry>& gpus = gpu_catalog();
  EXPECT_GE(gpus.size(), 15u);
  std::set<std::string> ids;
  for (const GpuEntry& g : gpus) {
    EXPECT_TRUE(ids.insert(g.id).second) << g.id;
    EXPECT_GT(g.memory_bytes, uint64_t{8} << 30) << g.id;
    EXPECT_FALSE(g.memory_bytes_source.empty()) << g.id;
    EXPECT_GT(g.bandwidth_bytes_per_s, 100'000'000'000u) << g.id;
    EXPECT_FALSE(g.source.empty()) << g.id;
  }
  const Result<GpuEntry> h100 = find_gpu("h100-sxm-80gb");
  ASSERT_TRUE(h100.ok);
  EXPECT_EQ(h100.value.memory_bytes, 81559ull << 20);  // nvidia-smi: 81559 MiB
}

TEST(Catalog, LookupIsCaseInsensitiveAndUnknownIdsSuggest) {
  EXPECT_TRUE(find_model("Llama-3.1-8B").ok);
  const Result<ModelEntry> typo = find_model("llama-3.1-7b");
  ASSERT_FALSE(typo.ok);
  EXPECT_EQ(typo.error.code, kUnknownId);
  EXPECT_EQ(typo.error.field, "model");
  EXPECT_NE(typo.error.message.find("llama-3.1-8b"), std::string::npos) << typo.error.message;
  const Result<GpuEntry> gpu = find_gpu("<script>");
  ASSERT_FALSE(gpu.ok);
  EXPECT_EQ(gpu.error.message.find('<'), std::string::npos);
}

}  // namespace
}  // namespace kvscope
