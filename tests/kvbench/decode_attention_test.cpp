// The CPU decode-attention kernel against the fp64 reference over dtypes, GQA group sizes, page
// sizes, ragged lengths and chunk splits, on every code path this CPU runs (portable, AVX2,
// AVX-512, AVX512_BF16, AVX512_VNNI); and kvbench's kvscope.measured/1 record.
#include "decode_attention.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <utility>

#include "kvbench.hpp"
#include "paged_kv.hpp"

namespace kvbench {
namespace {

struct Case {
  KvType type;
  uint32_t q_heads, kv_heads, head_dim, page_size;
  std::vector<uint64_t> lengths;
  uint32_t threads;
  uint64_t chunk;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << kv_type_name(c.type) << " g=" << c.q_heads / c.kv_heads << " d=" << c.head_dim
      << " page=" << c.page_size << " batch=" << c.lengths.size() << " chunk=" << c.chunk;
}

class KernelMatchesReference : public ::testing::TestWithParam<Case> {};

// Every layout, every path this CPU runs, both walks.
TEST_P(KernelMatchesReference, WithinTolerance) {
  const Case& c = GetParam();
  for (KvLayout layout :
       {KvLayout::kHnd, KvLayout::kNhd, KvLayout::kHndJoint, KvLayout::kNhdJoint}) {
    SCOPED_TRACE(kv_layout_name(layout));
    const PagedKv kv = make_paged_kv(
        {c.q_heads, c.kv_heads, c.head_dim, c.page_size, c.type, layout}, c.lengths, 7);
    const std::vector<double> reference = decode_attention_reference(kv);
    for (CpuKernel kernel : supported_cpu_kernels(c.type)) {
      for (CpuWalk walk : {CpuWalk::kHead, CpuWalk::kPage}) {
        SCOPED_TRACE(std::string(cpu_kernel_name(kernel)) + " by " + cpu_walk_name(walk));
        std::vector<float> out(c.lengths.size() * c.q_heads * c.head_dim,
                               std::nanf(""));  // poisoned
        decode_attention_cpu(kv, CpuPlan{c.threads, c.chunk, kernel, walk}, out.data());
        const Comparison cmp = compare(reference, out.data(), 2e-3, 2e-3);
        EXPECT_TRUE(cmp.all_finite) << "an output was not written, or a poisoned slot was read";
        EXPECT_TRUE(cmp.pass) << "max abs error " << cmp.max_abs_error;
        EXPECT_LT(cmp.max_abs_error, 1e-4);
      }
    }
  }
}

// The layouts put the same rows in different places: each (page, head, slot) has its own K and
// V bytes, none shared, all inside the pool, and the strides are the engines' shapes.
TEST(PagedKv, LayoutsPlaceEveryRowOnceInsideThePool) {
  for (KvLayout layout :
       {KvLayout::kHnd, KvLayout::kNhd, KvLayout::kHndJoint, KvLayout::kNhdJoint}) {
    SCOPED_TRACE(kv_layout_name(layout));
    const PagedKv kv = make_paged_kv({8, 4, 64, 16, KvType::kBf16, layout}, {40, 7}, 1, 2);
    const uint64_t row = 64 * 2;
    std::vector<int> owner(kv.pool.size(), 0);
    for (uint64_t page = 0; page < kv.num_pages; ++page) {
      for (uint32_t h = 0; h < 4; ++h) {
        for (uint64_t slot = 0; slot < 16; ++slot) {
          const uint64_t k = kv.row_offset(page, h, slot), v = k + kv.v_offset;
          ASSERT_LE(v + row, kv.pool.size());
          for (uint64_t i = 0; i < row; ++i) {
            ++owner[k + i];
            ++owner[v + i];
          }
        }
      }
    }
    EXPECT_EQ(std::count(owner.begin(), owner.end(), 1),
              static_cast<std::ptrdiff_t>(kv.pool.size()));
    const bool hnd = layout == KvLayout::kHnd || layout == KvLayout::kHndJoint;
    EXPECT_EQ(kv.slot_stride, hnd ? row : 4 * row);  // hnd: a head's slots are one run
    const bool joint = layout == KvLayout::kHndJoint || layout == KvLayout::kNhdJoint;
    EXPECT_EQ(kv.v_offset,
              joint ? 16 * 4 * row : kv.num_pages * 16 * 4 * row);  // V in the same page
    std::string name = kv_layout_name(layout);
    KvLayout parsed;
    EXPECT_TRUE(parse_kv_layout(name, parsed));
    EXPECT_EQ(parsed, layout);
  }
  KvLayout parsed;
  EXPECT_FALSE(parse_kv_layout("HND", parsed));
}

INSTANTIATE_TEST_SUITE_P(
    Grid, KernelMatchesReference,
    ::testing::Values(
        Case{KvType::kBf16, 32, 8, 128, 16, {4096}, 2, 0},         // Llama-3.1-8B, GQA 4
        Case{KvType::kBf16, 32, 8, 128, 16, {4096}, 2, 512},       // split into chunks, merged
        Case{KvType::kFp16, 32, 32, 128, 16, {97, 1, 300}, 2, 0},  // MHA, ragged, a 1-token row
        Case{KvType::kFp32, 8, 1, 64, 1, {513, 17}, 1, 64},        // MQA, page size 1
        Case{KvType::kFp8E4m3, 16, 2, 128, 64, {1000, 65, 64}, 2, 128},  // g = 8, partial pages
        Case{KvType::kInt8, 12, 4, 96, 32, {257, 31}, 2, 0},             // d not a multiple of 64
        Case{KvType::kBf16, 16, 1, 256, 16, {2049}, 2, 1024},            // g = 16, d = 256
        Case{KvType::kFp16, 6, 3, 40, 7, {100, 3, 77, 1}, 3, 16},        // odd sizes everywhere
        // Head blocks of 4 + 1 and 4 + 2, dimensions past the last multiple of 8, pair tails.
        Case{KvType::kFp8E4m3, 10, 2, 100, 16, {95, 33}, 2, 0},
        Case{KvType::kBf16, 12, 2, 36, 8, {61, 2}, 1, 0},
        Case{KvType::kInt8, 4, 2, 72, 16, {129}, 2, 64},  // g = 2: four chunks of 8 per pass
        // bf16 tiles (AVX512_BF16): MHA, g = 2, g = 8 with d = 80 (a 16-value tail), page size 1.
        Case{KvType::kBf16, 8, 8, 64, 16, {300, 17}, 2, 0},
        Case{KvType::kBf16, 4, 2, 128, 1, {77}, 1, 0},
        Case{KvType::kBf16, 16, 2, 80, 16, {1000, 5}, 2, 256},
        // int8 tiles (AVX512_VNNI): Llama's shape, MHA with d = 80 (a 16-value tail), g = 8.
        Case{KvType::kInt8, 32, 8, 128, 16, {2000, 3}, 2, 0},
        Case{KvType::kInt8, 4, 4, 80, 16, {300}, 1, 0},
        Case{KvType::kInt8, 16, 2, 256, 8, {77, 130}, 2, 64}),
    [](const ::testing::TestParamInfo<Case>& info) { return "case" + std::to_string(info.index); });

TEST(KernelMatchesReference, PeakySoftmax) {
  // Large queries make the softmax peak on a few tokens (exercises the running-max rescale; 30 q
  // is not a bf16 value, so the bf16 tile scores with q split in two bf16 halves).
  PagedKv kv = make_paged_kv({8, 2, 64, 16, KvType::kBf16}, {700, 701}, 3);
  for (float& x : kv.q) x *= 30.0f;
  const std::vector<double> reference = decode_attention_reference(kv);
  for (CpuKernel kernel : supported_cpu_kernels(KvType::kBf16)) {
    for (CpuWalk walk : {CpuWalk::kHead, CpuWalk::kPage}) {
      SCOPED_TRACE(std::string(cpu_kernel_name(kernel)) + " by " + cpu_walk_name(walk));
      std::vector<float> out(2 * 8 * 64);
      decode_attention_cpu(kv, CpuPlan{2, 128, kernel, walk}, out.data());
      EXPECT_TRUE(compare(reference, out.data(), 2e-3, 2e-3).pass);
    }
  }
}

TEST(CpuKernels, ThePortablePathIsAlwaysThereAndTheBestIsTheWidest) {
  for (KvType type :
       {KvType::kFp32, KvType::kFp16, KvType::kBf16, KvType::kFp8E4m3, KvType::kInt8}) {
    const std::vector<CpuKernel> paths = supported_cpu_kernels(type);
    ASSERT_FALSE(paths.empty());
    EXPECT_EQ(paths.front(), CpuKernel::kPortable);
    EXPECT_EQ(best_cpu_kernel(type), paths.back());
    // vdpbf16ps multiplies bf16 pairs: only bf16 KV has that path.
    if (type != KvType::kBf16) EXPECT_NE(paths.back(), CpuKernel::kAvx512Bf16);
    // vpdpbusd multiplies int8: only int8 KV has that path.
    if (type != KvType::kInt8) EXPECT_NE(paths.back(), CpuKernel::kAvx512Vnni);
    for (CpuKernel k : paths) EXPECT_EQ(parse_cpu_kernel(cpu_kernel_name(k)), k);
  }
  EXPECT_EQ(parse_cpu_kernel("sse9"), std::nullopt);
}

TEST(KernelMatchesReference, BytesMovedCountKAndVOnce) {
  const PagedKv kv = make_paged_kv({32, 8, 128, 16, KvType::kBf16}, {1000, 24}, 1);
  const uint64_t kv_bytes = 2ull * (1000 + 24) * 8 * 128 * 2;
  const uint64_t qo = 2ull * 2 * 32 * 128 * 4, table = (63 + 2) * 4;
  EXPECT_EQ(kv.bytes_moved(), kv_bytes + qo + table);
}

nlohmann::json run_json(const std::vector<std::string>& args, int& status, std::string& err_text) {
  std::ostringstream out, err;
  status = run(args, out, err);
  err_text = err.str();
  return status == 0 ? nlohmann::json::parse(out.str()) : nlohmann::json();
}

// The record's CPU identity against /proc/cpuinfo read here (where the file has the fields), and
// the cache sizes as keys (null where the C library does not know them).
void ExpectCpuIdentityFromProcCpuinfo(const nlohmann::json& device) {
  std::ifstream in("/proc/cpuinfo");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& [field, key] :
       {std::pair{"cpu family", "family"}, {"model", "model"}, {"stepping", "stepping"}}) {
    std::smatch m;
    if (std::regex_search(text, m, std::regex(std::string("(^|\n)") + field + "\\s*: (\\d+)\n"))) {
      EXPECT_EQ(device["cpuid"][key].get<uint64_t>(), std::stoull(m[2].str())) << field;
    } else {
      EXPECT_FALSE(device["cpuid"].contains(key)) << field;
    }
  }
  std::smatch name;
  if (std::regex_search(text, name, std::regex("model name\\s*: ([^\n]*)")))
    EXPECT_EQ(device["model"], name[1].str());
  for (const char* key : {"l1d_bytes", "l2_bytes", "llc_bytes"})
    EXPECT_TRUE(device.contains(key) && (device[key].is_null() || device[key].get<int64_t>() > 0))
        << key;
}

// Each round's stream run, cross-check run and kernel step, and the paired statistics (medians
// over the rounds, the record's quantile: the value at rank n / 2) recomputed from them.
void ExpectPairedRounds(const nlohmann::json& j) {
  const nlohmann::json& bw = j["measured_bandwidth"];
  ASSERT_EQ(bw["rounds"].size(), bw["runs"].get<size_t>());
  std::vector<double> over_check, efficiency;
  for (const nlohmann::json& r : bw["rounds"]) {
    over_check.push_back(r["stream_bytes_per_s"].get<double>() /
                         r["check_bytes_per_s"].get<double>());
    efficiency.push_back(j["bytes_moved"].get<double>() / r["kernel_step_s"].get<double>() /
                         r["stream_bytes_per_s"].get<double>());
    EXPECT_LE(r["stream_bytes_per_s"].get<double>(), bw["spread"]["best"].get<double>());
  }
  std::sort(over_check.begin(), over_check.end());
  std::sort(efficiency.begin(), efficiency.end());
  EXPECT_DOUBLE_EQ(bw["cross_check"]["stream_over_check_paired"].get<double>(),
                   over_check[over_check.size() / 2]);
  const nlohmann::json& paired = j["paired_efficiency"];
  EXPECT_DOUBLE_EQ(paired["median"].get<double>(), efficiency[efficiency.size() / 2]);
  EXPECT_DOUBLE_EQ(paired["worst"].get<double>(), efficiency.front());
  EXPECT_DOUBLE_EQ(paired["best"].get<double>(), efficiency.back());
}

TEST(Kvbench, RecordHasTheContractKeysAndProvenance) {
  int status;
  std::string err;
  const nlohmann::json j =
      run_json({"attention", "--model", "llama-3.1-8b", "--context", "512", "--batch", "2",
                "--kv-dtype", "fp8", "--threads", "2", "--json"},
               status, err);
  ASSERT_EQ(status, 0) << err;
  EXPECT_EQ(j["schema"], "kvscope.measured/1");
  for (const char* key : {"tool", "version", "commit", "date", "command"})
    EXPECT_TRUE(j["meta"].contains(key)) << key;
  EXPECT_EQ(
      j["meta"]["command"].get<std::string>().rfind("kvbench attention --model llama-3.1-8b", 0),
      0u);
  EXPECT_EQ(j["device"]["kind"], "cpu");
  ExpectCpuIdentityFromProcCpuinfo(j["device"]);
  for (const char* key : {"method", "warmup", "samples", "median_s", "p10_s", "p90_s"})
    EXPECT_TRUE(j["timing"].contains(key)) << key;
  EXPECT_LE(j["timing"]["p10_s"].get<double>(), j["timing"]["median_s"].get<double>());
  EXPECT_LE(j["timing"]["median_s"].get<double>(), j["timing"]["p90_s"].get<double>());
  EXPECT_GE(j["timing"]["samples"].get<int>(), 10);
  // 2 sequences x 512 tokens x 8 KV heads x 128 x 1 byte, K and V: the core's bytes exactly.
  EXPECT_EQ(j["estimate"]["bytes"].get<uint64_t>(), 2ull * 512 * 8 * 128 * 2);
  EXPECT_GT(j["bytes_moved"].get<uint64_t>(), j["estimate"]["bytes"].get<uint64_t>());
  const double achieved = j["achieved_bytes_per_s"].get<double>();
  EXPECT_NEAR(achieved, j["bytes_moved"].get<double>() / j["timing"]["median_s"].get<double>(),
              achieved * 1e-9);
  EXPECT_NEAR(j["bandwidth_efficiency"].get<double>(),
              achieved / j["measured_bandwidth_bytes_per_s"].get<double>(), 1e-9);
  // The layout's own ceiling: the same K and V bytes as the core counts, read in the same run.
  EXPECT_EQ(j["paged_read"]["bytes"].get<uint64_t>(), j["estimate"]["bytes"].get<uint64_t>());
  EXPECT_GT(j["paged_read"]["bytes_per_s"].get<double>(), 0);
  EXPECT_NEAR(j["paged_read"]["efficiency"].get<double>(),
              achieved / j["paged_read"]["bytes_per_s"].get<double>(), 1e-9);
  EXPECT_NEAR(j["measured_over_estimate"].get<double>(),
              j["timing"]["median_s"].get<double>() / j["estimate_s"].get<double>(), 1e-9);
  EXPECT_TRUE(j["correctness"]["pass"]);
  EXPECT_EQ(j["problem"]["group_size"], 4);
  // The path taken is one this CPU runs, the widest by default.
  EXPECT_EQ(j["cpu_kernel"]["path"], cpu_kernel_name(best_cpu_kernel(KvType::kFp8E4m3)));
  EXPECT_EQ(j["cpu_kernel"]["paths_this_cpu_runs"].back(), j["cpu_kernel"]["path"]);
  // The stream: its spread, pages, threads, and the interleaved cross-check's ratio.
  const nlohmann::json& bw = j["measured_bandwidth"];
  EXPECT_EQ(bw["threads"], 2);
  EXPECT_EQ(bw["spread"]["best"].get<double>(), j["measured_bandwidth_bytes_per_s"].get<double>());
  EXPECT_LE(bw["spread"]["worst"].get<double>(), bw["spread"]["median"].get<double>());
  EXPECT_LE(bw["spread"]["median"].get<double>(), bw["spread"]["best"].get<double>());
  EXPECT_NEAR(bw["cross_check"]["stream_over_check"].get<double>(),
              bw["spread"]["best"].get<double>() / bw["cross_check"]["bytes_per_s"].get<double>(),
              1e-9);
  EXPECT_NE(bw["pages"].get<std::string>().find("pages"), std::string::npos);
  ExpectPairedRounds(j);
}

// The defaults (page walk, hnd pages) and what the flags force are what the record names.
TEST(Kvbench, AForcedPathLayoutAndWalkAreTheOnesRecorded) {
  struct Run {
    std::vector<std::string> flags;
    std::string path, layout, walk;
  };
  const std::vector<Run> runs = {{{"--cpu-kernel", "portable"}, "portable", "hnd", "page"},
                                 {{"--kv-layout", "nhd-joint", "--cpu-walk", "head"},
                                  cpu_kernel_name(best_cpu_kernel(KvType::kBf16)),
                                  "nhd-joint",
                                  "head"}};
  for (const Run& r : runs) {
    std::vector<std::string> args = {
        "attention", "--model",    "llama-3.1-8b", "--context", "300", "--batch",
        "2",         "--kv-dtype", "bf16",         "--threads", "2",   "--json"};
    args.insert(args.end(), r.flags.begin(), r.flags.end());
    int status;
    std::string err;
    const nlohmann::json j = run_json(args, status, err);
    ASSERT_EQ(status, 0) << err;
    EXPECT_EQ(j["cpu_kernel"]["path"], r.path);
    EXPECT_EQ(j["problem"]["kv_layout"], r.layout);
    EXPECT_EQ(j["cpu_kernel"]["walk"], r.walk);
    EXPECT_TRUE(j["correctness"]["pass"]);
    EXPECT_GT(j["paged_read"]["bytes_per_s"].get<double>(), 0);
  }
}

TEST(Kvbench, BadInputIsOneLineNamingTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"attention", "--model", "llama-3.1-8b", "--batch", "-1"}, "--batch"},
      {{"attention", "--model", "llama-3.1-8b", "--kv-dtype", "q4_0"}, "--kv-dtype"},
      {{"attention", "--model", "nope"}, "--model"},
      {{"attention", "--model", "deepseek-v2-lite"}, "--model"},
      {{"attention", "--model", "llama-3.1-8b", "--device", "tpu"}, "--device"},
      {{"attention", "--model", "llama-3.1-8b", "--layers", "3"}, "--layers"},
      {{"attention", "--model", "llama-3.1-8b", "--context", "1", "--lengths", "5"}, "--context"},
      {{"attention", "--model", "llama-3.1-8b", "--context", "99999999999"}, "--context"},
      {{"attention", "--model", "llama-3.1-8b", "--bogus", "1"}, "--bogus"},
      {{"attention", "--model", "llama-3.1-8b", "--cpu-kernel", "sse9"}, "--cpu-kernel"},
      // vdpbf16ps multiplies bf16: no CPU runs that path for fp8 KV.
      {{"attention", "--model", "llama-3.1-8b", "--kv-dtype", "fp8", "--cpu-kernel", "avx512-bf16"},
       "--cpu-kernel"},
      {{"attention", "--model", "llama-3.1-8b", "--kv-layout", "HND"}, "--kv-layout"},
      {{"attention", "--model", "llama-3.1-8b", "--cpu-walk", "token"}, "--cpu-walk"},
      {{"attention", "--model", "llama-3.1-8b", "--device", "cuda", "--kv-layout", "nhd"},
       "--kv-layout"},
      {{"attention", "--model", "llama-3.1-8b", "--device", "cuda", "--cpu-walk", "page"},
       "--cpu-walk"},
      {{"benchmark"}, "command"}};
  for (const auto& [args, field] : cases) {
    int status;
    std::string err;
    run_json(args, status, err);
    EXPECT_EQ(status, 2) << field;
    EXPECT_EQ(err.rfind("kvbench: error: " + field + ": ", 0), 0u) << err;
    EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
  }
}

}  // namespace
}  // namespace kvbench
