// Weights as quantized checkpoints store them, against the checkpoints themselves: each
// tests/data/checkpoints/<repo>/report-weight-table.md lists every tensor of a published
// checkpoint with its shape and dtype as read from the safetensors headers (their sum is the
// index's metadata.total_size), and kvscope must come within 1% of that sum from config.json
// alone.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "kvscope/model/weights.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(std::string(KVSCOPE_TEST_DATA_DIR) + "/checkpoints/" + path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Sum of the table's tensors: shape x dtype size x layers x experts, per name (layer ranges
// stripped), so a test can also compare one module's tensors.
struct Checkpoint {
  uint64_t total_bytes = 0;
  std::map<std::string, uint64_t> bytes_by_name;
};

Checkpoint read_weight_table(const std::string& path) {
  static const std::map<std::string, uint64_t> kDtypeBytes = {
      {"bfloat16", 2}, {"float16", 2}, {"float32", 4}, {"float8_e4m3fn", 1},
      {"uint8", 1},    {"int8", 1},    {"int32", 4},   {"int64", 8}};
  const std::regex row(R"(^\| `([^`]+)`(.*?)\| `\[([0-9, ]*)\]` \| `torch\.(\w+)`)");
  const std::regex times(R"(×(\d+))");
  const std::regex layer_range(R"(layers\.[0-9]+(-[0-9]+)?\.)");
  Checkpoint c;
  std::istringstream lines(read_text(path));
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    uint64_t bytes = kDtypeBytes.at(m[4].str());
    std::istringstream dims(m[3].str());
    for (std::string d; std::getline(dims, d, ',');) bytes *= std::stoull(d);
    const std::string multipliers = m[2].str();
    for (auto it = std::sregex_iterator(multipliers.begin(), multipliers.end(), times);
         it != std::sregex_iterator(); ++it) {
      bytes *= std::stoull((*it)[1].str());
    }
    c.total_bytes += bytes;
    c.bytes_by_name[std::regex_replace(m[1].str(), layer_range, "layers.")] += bytes;
  }
  EXPECT_GT(c.total_bytes, 0u) << path;
  return c;
}

WeightBytes checkpoint_weights(const ModelShape& shape) {
  const Result<std::vector<WeightTensor>> tensors = weight_tensors(shape);
  EXPECT_TRUE(tensors.ok) << tensors.error.message;
  const Result<WeightBytes> bytes = weight_bytes(tensors.value, shape.weights);
  EXPECT_TRUE(bytes.ok) << bytes.error.message;
  return bytes.value;
}

ModelShape shape_of(const std::string& config_path) {
  return test::import_ok(read_text(config_path)).shape;
}

double relative_error(uint64_t got, uint64_t want) {
  return std::abs(static_cast<double>(got) / static_cast<double>(want) - 1);
}

uint64_t module_bytes(const WeightBytes& w, ModuleClass module) {
  uint64_t n = 0;
  for (const ModuleBytes& m : w.modules) n += m.module == module ? m.bytes : 0;
  return n;
}

struct Case {
  const char* dir;
  const char* weights_name;  // what the report calls the storage
};

class CheckpointTotal : public ::testing::TestWithParam<Case> {};

TEST_P(CheckpointTotal, WithinOnePercentOfTheTensorsItStores) {
  const Case& c = GetParam();
  const std::string dir = c.dir;
  const Checkpoint reference = read_weight_table(dir + "/report-weight-table.md");
  const ModelShape shape = shape_of(dir + "/config.json");
  EXPECT_EQ(shape.weights.name, c.weights_name);
  const WeightBytes w = checkpoint_weights(shape);
  EXPECT_LT(relative_error(w.total, reference.total_bytes), 0.01)
      << dir << ": kvscope " << w.total << ", checkpoint " << reference.total_bytes;
  // Sized as bf16 the same checkpoint is far off: the test distinguishes the two.
  ModelShape as_bf16 = shape;
  as_bf16.weights = plain_storage(test::weight_dtype("bf16"));
  EXPECT_GT(relative_error(checkpoint_weights(as_bf16).total, reference.total_bytes), 0.3) << dir;
}

INSTANTIATE_TEST_SUITE_P(
    Real, CheckpointTotal,
    ::testing::Values(Case{"deepseek-ai__deepseek-v3.2", "fp8 128x128 blocks"},
                      Case{"moonshotai__kimi-k2-instruct", "fp8 128x128 blocks"},
                      Case{"openai__gpt-oss-20b", "mxfp4 experts"},
                      Case{"qwen__qwen3-30b-a3b-thinking-2507-fp8", "fp8 128x128 blocks"}),
    [](const auto& info) {
      std::string name = info.param.dir;
      for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      return name;
    });

// mistralai/Devstral-Small-2507's index (a bf16 checkpoint of the Mistral Small 3.1 text shape):
// kvscope's count from the catalogue's config is its total_size to the byte, and the index itself
// fixes the weights exactly.
TEST(CheckpointWeights, DevstralSmall2507IndexTotalSize) {
  const std::string index =
      read_text("mistralai__devstral-small-2507/model.safetensors.index.json");
  PlanInput in;
  in.model.model_id = "mistral-small-3.1-24b";
  in.gpu_id = "h100-sxm-80gb";
  in.max_model_len = 32768;
  EXPECT_EQ(test::plan_ok(in).weights_bytes, uint64_t{47144806400});
  in.weights_index_json = index;
  const PlanReport given = test::plan_ok(in);
  EXPECT_EQ(given.weights_bytes, uint64_t{47144806400});
  EXPECT_NE(given.weights_source.find("47,144,806,400"), std::string::npos) << given.weights_source;
}

// The report of deepseek-ai/DeepSeek-V3 gives only its sum, 641.29 GiB to two decimals.
TEST(CheckpointWeights, DeepSeekV3Fp8WithItsMtpLayer) {
  const ModelShape shape = shape_of("deepseek-ai__deepseek-v3/config.json");
  ASSERT_EQ(shape.draft_layers.size(), 1u);  // num_nextn_predict_layers
  EXPECT_TRUE(shape.draft_embeddings);
  const WeightBytes w = checkpoint_weights(shape);
  EXPECT_NEAR(static_cast<double>(w.total) / (1u << 30), 641.29, 0.01);
  // What vLLM loads without speculative decoding: the MTP layer's 15.4 GB stay on disk.
  EXPECT_NEAR(static_cast<double>(w.draft) / 1e9, 15.4, 0.1);
}

// The MTP layer's own tensors, and the sparse-attention indexer's, one by one.
TEST(CheckpointWeights, DeepSeekV32IndexerAndMtpTensors) {
  const Checkpoint reference =
      read_weight_table("deepseek-ai__deepseek-v3.2/report-weight-table.md");
  const ModelShape shape = shape_of("deepseek-ai__deepseek-v3.2/config.json");
  EXPECT_EQ(shape.mla.index_head_dim, 128u);
  EXPECT_EQ(shape.layers[0].indexer_head_dim, 128u);
  const std::vector<WeightTensor> tensors = weight_tensors(shape).value;
  auto bytes_of = [&](const std::string& part) {
    uint64_t n = 0;
    for (const WeightTensor& t : tensors) {
      if (t.name.size() < part.size() ||
          t.name.compare(t.name.size() - part.size(), part.size(), part) != 0)
        continue;
      const Result<WeightBytes> b = weight_bytes({t}, shape.weights);
      n += b.value.total;
    }
    return n;
  };
  // fp8 with fp32 block scales, or bf16, exactly as stored.
  EXPECT_EQ(bytes_of("indexer.wq_b"),
            reference.bytes_by_name.at("model.layers.self_attn.indexer.wq_b.weight") +
                reference.bytes_by_name.at("model.layers.self_attn.indexer.wq_b.weight_scale_inv"));
  EXPECT_EQ(bytes_of("indexer.weights_proj"),
            reference.bytes_by_name.at("model.layers.self_attn.indexer.weights_proj.weight"));
  EXPECT_EQ(bytes_of("eh_proj"), reference.bytes_by_name.at("model.layers.eh_proj.weight"));
  EXPECT_EQ(bytes_of("shared_head.head"),
            reference.bytes_by_name.at("model.layers.shared_head.head.weight"));
  EXPECT_EQ(bytes_of("kv_b_proj"),
            reference.bytes_by_name.at("model.layers.self_attn.kv_b_proj.weight") +
                reference.bytes_by_name.at("model.layers.self_attn.kv_b_proj.weight_scale_inv"));
}

// gpt-oss stores its experts as MXFP4 blocks (16 bytes per 32 values) and one e8m0 scale per 32,
// beside bf16 biases: the expert tensors' bytes, and the whole checkpoint's, are exact.
TEST(CheckpointWeights, GptOssExpertsAreMxfp4Exactly) {
  const Checkpoint reference = read_weight_table("openai__gpt-oss-20b/report-weight-table.md");
  const WeightBytes w = checkpoint_weights(shape_of("openai__gpt-oss-20b/config.json"));
  uint64_t experts = 0;
  for (const char* part : {"gate_up_proj_blocks", "gate_up_proj_scales", "down_proj_blocks",
                           "down_proj_scales", "gate_up_proj_bias", "down_proj_bias"}) {
    experts += reference.bytes_by_name.at(std::string("model.layers.mlp.experts.") + part);
  }
  EXPECT_EQ(module_bytes(w, ModuleClass::kRoutedExperts), experts);
  // Attention stays bf16 (modules_to_not_convert "model.layers.*.self_attn"), with its biases
  // (attention_bias) and a sink per head.
  uint64_t attention = 0;
  for (const char* part : {"q_proj.weight", "k_proj.weight", "v_proj.weight", "o_proj.weight",
                           "q_proj.bias", "k_proj.bias", "v_proj.bias", "o_proj.bias", "sinks"}) {
    attention += reference.bytes_by_name.at(std::string("model.layers.self_attn.") + part);
  }
  EXPECT_EQ(module_bytes(w, ModuleClass::kAttention), attention);
  // With the router's biases, every tensor: the checkpoint to the byte.
  EXPECT_EQ(w.total, reference.total_bytes);
}

// Two checkpoints whose reports give the tensors but not the raw config.json: the catalogue's
// config of the base model with the quantization_config the report prints.
TEST(CheckpointWeights, Qwen3Fp8AndAwqFromTheBaseConfig) {
  struct Derived {
    const char* table;
    const char* base;
    const char* quantization_config;
  };
  for (const Derived& d :
       {Derived{"qwen__qwen3-8b-fp8/report-weight-table.md", "qwen3-8b",
                R"({"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                    "weight_block_size": [128, 128]})"},
        Derived{"qwen__qwen3-32b-awq/report-weight-table.md", "qwen3-32b",
                R"({"bits": 4, "group_size": 128, "modules_to_not_convert": null,
                    "quant_method": "awq", "version": "gemm", "zero_point": true})"}}) {
    const Result<ModelEntry> entry = find_model(d.base);
    ASSERT_TRUE(entry.ok);
    const Result<std::string> config = apply_config_overrides(
        entry.value.config_json, {{"quantization_config", d.quantization_config}});
    ASSERT_TRUE(config.ok) << config.error.message;
    const WeightBytes w = checkpoint_weights(test::import_ok(config.value).shape);
    const uint64_t reference = read_weight_table(d.table).total_bytes;
    EXPECT_LT(relative_error(w.total, reference), 0.01)
        << d.table << ": kvscope " << w.total << ", checkpoint " << reference;
    // The AWQ checkpoint keeps its q/k norms, head_dim each, in fp16: to the byte with them.
    if (std::string(d.base) == "qwen3-32b") EXPECT_EQ(w.total, reference);
  }
}

// One linear layer of N outputs x K inputs in each method's checkpoint layout, from the tensors
// the loaders create (vllm/model_executor/layers/quantization/: gptq.py qweight (K/8, N) int32,
// qzeros (K/g, N/8) int32, scales (K/g, N) fp16, g_idx (K) int32; modelopt.py NVFP4 weight
// (N, K/2) uint8, weight_scale (N, K/16) fp8, weight_scale_2 and input_scale fp32;
// compressed_tensors W8A8 int8 weight (N, K) and a per-channel scale; bitsandbytes nf4 packed
// 4-bit values with an fp32 absmax per 64).
TEST(CheckpointWeights, EachMethodsTensorsForOneLinearLayer) {
  constexpr uint64_t N = 4096, K = 11008;
  auto bytes_of = [&](const std::string& quantization_config) {
    const std::string config =
        R"({"num_hidden_layers": 1, "hidden_size": 11008, "num_attention_heads": 1, "head_dim": 4096,
            "num_key_value_heads": 1, "vocab_size": 8, "max_position_embeddings": 64,
            "torch_dtype": "bfloat16", "quantization_config": )" +
        quantization_config + "}";
    const ModelShape shape = test::import_ok(config).shape;
    // q_proj is 4096 x 11008: the layer's first linear tensor.
    for (const WeightTensor& t : weight_tensors(shape).value) {
      if (t.name.find("q_proj") != std::string::npos) {
        EXPECT_EQ(t.rows, N);
        EXPECT_EQ(t.cols, K);
        return weight_bytes({t}, shape.weights).value.total;
      }
    }
    return uint64_t{0};
  };
  EXPECT_EQ(
      bytes_of(R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": false})"),
      K / 8 * N * 4 + K / 128 * N / 8 * 4 + K / 128 * N * 2 + K * 4);
  EXPECT_EQ(
      bytes_of(R"({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": true})"),
      K * N / 8 * 4 + K / 128 * N / 8 * 4 + K / 128 * N * 2);
  EXPECT_EQ(bytes_of(R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16})"),
            N * K / 2 + N * K / 16 + 4 + 4);
  EXPECT_EQ(bytes_of(R"({"quant_method": "fp8", "weight_block_size": [128, 128]})"),
            N * K + (N / 128) * ((K + 127) / 128) * 4);
  EXPECT_EQ(bytes_of(R"({"quant_method": "fp8", "activation_scheme": "static"})"), N * K + 4 + 4);
  EXPECT_EQ(bytes_of(R"({"quant_method": "compressed-tensors", "format": "int-quantized",
                         "config_groups": {"group_0": {"targets": ["Linear"],
                           "weights": {"num_bits": 8, "type": "int", "strategy": "channel",
                                       "symmetric": true}}}})"),
            N * K + N * 2);
  EXPECT_EQ(bytes_of(R"({"quant_method": "bitsandbytes", "load_in_4bit": true,
                         "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": false})"),
            N * K / 2 + N * K / 64 * 4 + 64 + 160);
}

// ModelOpt's exclude_modules globs (nvidia/DeepSeek-V3-0324-NVFP4's hf_quant_config.json):
// attention, norms, routers, the MTP layer, embeddings and head stay bf16; experts are NVFP4.
TEST(CheckpointWeights, ModelOptExclusionsAsGlobs) {
  const ModelShape shape = test::catalog_shape("deepseek-v3-0324-nvfp4");
  EXPECT_EQ(shape.weights.name, "nvfp4");
  const WeightBytes w = checkpoint_weights(shape);
  bool attention_plain = false, experts_nvfp4 = false;
  for (const ModuleBytes& m : w.modules) {
    if (m.module == ModuleClass::kAttention && !m.draft && m.format == "bf16")
      attention_plain = true;
    if (m.module == ModuleClass::kAttention && !m.draft) EXPECT_EQ(m.format, "bf16");
    if (m.module == ModuleClass::kRoutedExperts && !m.draft && m.format.rfind("nvfp4", 0) == 0)
      experts_nvfp4 = true;
  }
  EXPECT_TRUE(attention_plain);
  EXPECT_TRUE(experts_nvfp4);
  // 4.5 bits per expert weight: the whole checkpoint well under DeepSeek-V3's fp8 641 GiB.
  EXPECT_LT(static_cast<double>(w.total) / (1u << 30), 420);
}

}  // namespace
}  // namespace kvscope
