// The catalogues: size, coverage of families, provenance, and that every model imports cleanly.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
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

// The catalogue is read with its configs cut out as text (catalog.cpp): each entry still holds
// exactly the config of its entry in core/data/models.json, in order.
TEST(Catalog, EachModelKeepsTheConfigOfItsEntryInTheDataFile) {
  const nlohmann::ordered_json file = nlohmann::ordered_json::parse(test::read_data("../../core/data/models.json"));
  const std::vector<ModelEntry>& models = model_catalog();
  ASSERT_EQ(models.size(), file["models"].size());
  for (size_t i = 0; i < models.size(); ++i) {
    const nlohmann::ordered_json& entry = file["models"][i];
    EXPECT_EQ(models[i].id, entry["id"]);
    EXPECT_EQ(nlohmann::ordered_json::parse(models[i].config_json), entry["config"]) << models[i].id;
    EXPECT_EQ(models[i].params_published, entry.value("params_published", uint64_t{0})) << models[i].id;
  }
}

// A published parameter total cites where it was published (for the data file's readers: the
// program leaves the citation out, core/CMakeLists.txt).
TEST(Catalog, EachPublishedParameterTotalCitesItsSource) {
  const nlohmann::ordered_json file = nlohmann::ordered_json::parse(test::read_data("../../core/data/models.json"));
  for (const nlohmann::ordered_json& entry : file["models"]) {
    if (!entry.contains("params_published")) continue;
    EXPECT_TRUE(entry.contains("params_source") && entry["params_source"].is_string() &&
                !entry["params_source"].get<std::string>().empty()) << entry["id"];
  }
}

// A chat checkpoint beside a base config is another repository of the same maker, with where
// it is published; the config's own checkpoint stays the model's hf_id.
TEST(Catalog, ChatCheckpointsBesideBaseConfigsCiteTheirSource) {
  const nlohmann::ordered_json file =
      nlohmann::ordered_json::parse(test::read_data("../../core/data/models.json"));
  size_t chat = 0;
  for (const nlohmann::ordered_json& entry : file["models"]) {
    if (!entry.contains("serve_id")) continue;
    ++chat;
    const std::string serve = entry["serve_id"], base = entry["hf_id"];
    EXPECT_NE(serve, base) << entry["id"];
    EXPECT_EQ(serve.substr(0, serve.find('/')), base.substr(0, base.find('/'))) << entry["id"];
    EXPECT_EQ(entry.value("serve_source", std::string()).rfind("https://", 0), 0u) << entry["id"];
  }
  EXPECT_GE(chat, 30u);
  const ModelEntry llama = find_model("llama-3.1-8b").value;
  EXPECT_EQ(llama.hf_id, "meta-llama/Llama-3.1-8B");
  EXPECT_EQ(llama.served_id(), "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(find_model("gpt-oss-120b").value.served_id(), "openai/gpt-oss-120b");  // chat already
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

// Current checkpoints, with their weights as stored (quantization_config in the config subset).
TEST(Catalog, CurrentCheckpointsWithTheirStoredWeights) {
  const std::pair<const char*, const char*> kStored[] = {
      {"deepseek-v3", "fp8 128x128 blocks"},
      {"deepseek-v3.2", "fp8 128x128 blocks"},
      {"kimi-k2", "fp8 128x128 blocks"},
      {"gpt-oss-120b", "mxfp4 experts"},
      {"qwen3-30b-a3b-thinking-2507-fp8", "fp8 128x128 blocks"},
      {"qwen3-8b-fp8", "fp8 128x128 blocks"},
      {"qwen3-32b-awq", "awq-int4:g128"},
      {"llama-2-13b-chat-gptq", "gptq-int4:g128"},
      {"qwen3-32b-nvfp4", "nvfp4"},
      {"deepseek-v3-0324-nvfp4", "nvfp4"},
      {"kimi-k2.5", "int4 group 32 (pack-quantized)"},
      {"exaone-4.0-1.2b-w4a16", "int4 group 128 (pack-quantized)"},
      {"minimax-m2.7", "fp8 128x128 blocks"},
      {"deepseek-v3.1", "fp8 128x128 blocks"},
      {"devstral-small-2-24b", "fp8 per tensor"},
      {"devstral-2-123b", "fp8 per tensor"},
  };
  for (const auto& [id, stored] : kStored) {
    const Result<ModelEntry> m = find_model(id);
    ASSERT_TRUE(m.ok) << id;
    EXPECT_EQ(test::import_ok(m.value.config_json).shape.weights.name, stored) << id;
  }
  for (const char* id :
       {"glm-4.5", "glm-5.1", "qwen3.5-4b", "qwen3.5-397b-a17b", "gemma-4-31b", "gemma-4-e4b-w4a16",
        "nemotron-3-nano-30b-a3b", "phi-4-mini", "mistral-small-3.1-24b", "mimo-v2.5",
        "kimi-linear-48b-a3b", "qwen3-235b-a22b-2507", "glm-4.7-flash", "glm-4.7", "qwen3-coder-480b-a35b",
        "olmo-3.1-32b", "exaone-4.0-32b"}) {
    EXPECT_TRUE(find_model(id).ok) << id;
  }
}

TEST(Catalog, ModelsAnswerToTheirHuggingFaceIdsAndNames) {
  for (const char* spelling :
       {"Qwen/Qwen3-32B", "qwen/qwen3-32b", "Qwen3-32B", "Qwen3 32B", "QWEN3-32B"}) {
    const Result<ModelEntry> m = find_model(spelling);
    ASSERT_TRUE(m.ok) << spelling;
    EXPECT_EQ(m.value.id, "qwen3-32b") << spelling;
  }
  EXPECT_EQ(find_model("deepseek-ai/DeepSeek-R1").value.id, "deepseek-v3");  // an alias
  EXPECT_EQ(find_model("openai/gpt-oss-120b").value.id, "gpt-oss-120b");
  EXPECT_EQ(find_model("deepseek-ai/DeepSeek-V3.1").value.id, "deepseek-v3.1");
  EXPECT_EQ(find_model("google/gemma-3-27b-it").value.id, "gemma-3-27b");  // the chat checkpoint
  EXPECT_EQ(find_model("Llama-3.1-8B-Instruct").value.id, "llama-3.1-8b");
  const Result<ModelEntry> miss = find_model("Qwen/Qwen3-33B");
  ASSERT_FALSE(miss.ok);
  EXPECT_EQ(miss.error.code, kUnknownId);
  EXPECT_NE(miss.error.message.find("did you mean qwen3-32b"), std::string::npos)
      << miss.error.message;
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

TEST(Catalog, IdentifiesAModelFromTheNameALogPrints) {
  EXPECT_EQ(identify_model("/models/Meta-Llama-3.1-8B-Instruct").value.id, "llama-3.1-8b");
  EXPECT_EQ(identify_model("Meta Llama 3 8B Instruct").value.id, "llama-3-8b");
  EXPECT_EQ(identify_model("Meta-Llama-3-8B-Instruct-Q4_K_M.gguf").value.id, "llama-3-8b");
  EXPECT_EQ(identify_model("/data/models/Qwen3-Next-80B-A3B-Instruct").value.id,
            "qwen3-next-80b-a3b");
  // A quantized release with an entry of its own is not folded into its base.
  EXPECT_EQ(identify_model("Qwen/Qwen3-8B-FP8").value.id, "qwen3-8b-fp8");
  const auto unknown = identify_model("Qwen/Qwen2.5-1.5B-Instruct");
  ASSERT_FALSE(unknown.ok);
  EXPECT_EQ(unknown.error.field, "model");
}

// Checkpoints named by what they package: the names the start-up logs in tests/data/logs print.
TEST(Catalog, IdentifiesTheModelACheckpointPackages) {
  const auto nvfp4 = identify_checkpoint("nvidia/Qwen3.6-27B-NVFP4");
  ASSERT_TRUE(nvfp4.ok) << nvfp4.error.message;
  EXPECT_EQ(nvfp4.value.model.id, "qwen3.6-27b");
  EXPECT_EQ(nvfp4.value.dropped, "-NVFP4");
  EXPECT_EQ(identify_checkpoint("~/.cache/huggingface/qwen3.6-35b-a3b-nvfp4").value.model.id,
            "qwen3.6-35b-a3b");
  EXPECT_EQ(identify_checkpoint("RedHatAI/Qwen3.6-35B-A3B-NVFP4").value.model.id,
            "qwen3.6-35b-a3b");
  // A whole name the catalogue knows is not shortened.
  const auto fp8 = identify_checkpoint("Qwen/Qwen3-8B-FP8");
  EXPECT_EQ(fp8.value.model.id, "qwen3-8b-fp8");
  EXPECT_EQ(fp8.value.dropped, "");
  // Nothing left to match: the whole name's error.
  const auto unknown = identify_checkpoint("acme/frobnicator-7b-v2");
  ASSERT_FALSE(unknown.ok);
  EXPECT_NE(unknown.error.message.find("acme/frobnicator-7b-v2"), std::string::npos);
}

}  // namespace
}  // namespace kvscope
