// Google Benchmark of kvbench's CPU decode-attention kernel on one thread with the KV cache of
// one Llama-3.1-8B layer (32 query heads, 8 KV heads, d = 128) at 1,024 tokens, small enough to
// stay in the last-level cache: the kernel's arithmetic rate per KV dtype, apart from the memory
// system (`kvbench attention` measures it against DRAM). Run:
// build/native/native-bench/kvbench_kernel_bench
#include <benchmark/benchmark.h>

#include <vector>

#include "decode_attention.hpp"
#include "paged_kv.hpp"

namespace kvbench {
namespace {

constexpr uint64_t kTokens = 1024;
constexpr uint32_t kKvHeads = 8;

void BM_DecodeAttentionCpuInCache(benchmark::State& state) {
  const KvType type = static_cast<KvType>(state.range(0));
  const PagedKv kv = make_paged_kv({32, kKvHeads, 128, 16, type}, {kTokens}, 1);
  std::vector<float> out(32 * 128);
  for (auto _ : state) {
    decode_attention_cpu(kv, CpuPlan{1, 0}, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(kv_type_name(type));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * kTokens * kKvHeads * 128 *
                                               kv_type_bytes(type)));
  // The inverse of the rate of (token, KV head) pairs, scaled to nanoseconds.
  state.counters["ns_per_token_head"] =
      benchmark::Counter(kTokens * kKvHeads * 1e-9, benchmark::Counter::kIsIterationInvariantRate |
                                                        benchmark::Counter::kInvert);
}
BENCHMARK(BM_DecodeAttentionCpuInCache)
    ->DenseRange(static_cast<int>(KvType::kFp32), static_cast<int>(KvType::kInt8))
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace kvbench

BENCHMARK_MAIN();
