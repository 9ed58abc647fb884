// Google Benchmark of kvbench's CPU decode-attention kernel on one thread with the KV cache of
// one Llama-3.1-8B layer (32 query heads, 8 KV heads, d = 128) at 1,024 tokens, small enough to
// stay in the last-level cache: the kernel's arithmetic rate per KV dtype and per code path this
// CPU runs (portable, avx2, avx512, avx512-bf16), apart from the memory system (`kvbench
// attention` measures it against DRAM). Run: build/native/native-bench/kvbench_kernel_bench
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "cpu_kernels.hpp"
#include "decode_attention.hpp"
#include "paged_kv.hpp"

namespace kvbench {
namespace {

constexpr uint64_t kTokens = 1024;
constexpr uint32_t kKvHeads = 8;

void decode_attention_in_cache(benchmark::State& state, KvType type, CpuKernel kernel) {
  const PagedKv kv = make_paged_kv({32, kKvHeads, 128, 16, type}, {kTokens}, 1);
  std::vector<float> out(32 * 128);
  for (auto _ : state) {
    decode_attention_cpu(kv, CpuPlan{1, 0, kernel}, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * kTokens * kKvHeads * 128 *
                                               kv_type_bytes(type)));
  // The inverse of the rate of (token, KV head) pairs, scaled to nanoseconds.
  state.counters["ns_per_token_head"] =
      benchmark::Counter(kTokens * kKvHeads * 1e-9, benchmark::Counter::kIsIterationInvariantRate |
                                                        benchmark::Counter::kInvert);
}

void register_benchmarks() {
  for (KvType type : {KvType::kFp32, KvType::kFp16, KvType::kBf16, KvType::kFp8E4m3, KvType::kInt8}) {
    for (CpuKernel kernel : supported_cpu_kernels(type)) {
      const std::string name = std::string("DecodeAttentionCpuInCache/") + kv_type_name(type) + "/" +
                               cpu_kernel_name(kernel);
      benchmark::RegisterBenchmark(name.c_str(), decode_attention_in_cache, type, kernel)
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace
}  // namespace kvbench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  kvbench::register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
