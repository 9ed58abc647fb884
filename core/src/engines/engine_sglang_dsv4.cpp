// SGLang's DeepSeek-V4 pools (python/sglang/srt/model_executor/pool_configurator.py
// DSV4PoolConfigurator; its defaults from deepseek_v4_hook apply_deepseek_v4_defaults): the
// memory left for the cache is split by one coefficient, the bytes of a "full" token (its
// compressed entries, its share of the sliding-window pool and of the ratio-4 compressors' state
// rings), after a fixed bias, the ratio-128 compressors' state for every request slot. Sized as
// the fp8 path of SGLang's source of October 2026 (not its experimental unified-KV, online-compress
// or HiSparse paths; compressor state in fp32, SGLANG_DSV4_COMPRESS_STATE_DTYPE's default).
#include <algorithm>
#include <cstdio>

#include "engines/engine_profiles.hpp"
#include "kvscope/base/units.hpp"
#include "kvscope/kv/kv_arithmetic.hpp"

namespace kvscope::engines {
namespace {

constexpr uint64_t kPage = 256;              // page_size apply_deepseek_v4_defaults sets
constexpr uint64_t kRunningRequests = 256;   // its max_running_requests when none is given
constexpr double kSwaFullTokensRatio = 0.1;  // its swa_full_tokens_ratio when left at 0.8
constexpr uint64_t kStateBytes = 4;          // fp32 compressor state

std::string two_decimals(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

uint64_t sglang_default_block_size(const ModelShape& shape, std::string& note) {
  if (shape.layers.empty() || shape.layers[0].attention != AttentionKind::kCompressed) return 0;
  note = "page_size 256: SGLang's for DeepSeek-V4 (apply_deepseek_v4_defaults)";
  return kPage;
}

Result<SglangDsv4Bytes> sglang_dsv4_bytes(const ModelShape& shape, double swa_ratio,
                                          bool speculative) {
  using R = Result<SglangDsv4Bytes>;
  const Dtype fp8 = parse_dtype("fp8_ds_mla", DtypeUse::kKv, "kv_dtype").value;
  SglangDsv4Bytes out;
  // get_compress_state_ring_size: the rows each compressor keeps per window page (ratio 4) or per
  // request (ratio 128), twice as many under speculative decoding.
  out.ring4 = speculative ? 16 : 8;
  out.ring128 = speculative ? 256 : 128;
  for (const LayerSpec& l : shape.layers) {
    const Result<uint64_t> latent = latent_entry_bytes(l, fp8);
    if (!latent.ok) return R::failure(latent.error);
    const double entry = static_cast<double>(latent.value);
    out.window = std::max(out.window, l.window_tokens);
    out.per_full_token += swa_ratio * entry;
    if (l.compress_ratio == 4) {
      out.per_full_token +=
          (entry + static_cast<double>(indexer_bytes_per_token(l))) / 4 +
          swa_ratio * static_cast<double>(out.ring4) / static_cast<double>(l.window_tokens) *
              static_cast<double>(2 * 2 * (l.k_head_dim + l.indexer_head_dim) * kStateBytes);
    } else if (l.compress_ratio == 128) {
      out.per_full_token += entry / 128;
      out.c128_state_row += 2 * l.k_head_dim * kStateBytes;
    } else if (l.compress_ratio != 0) {
      return R::failure(make_error(kUnsupported, "model",
                                   "sglang: DeepSeek-V4's pools know ratios 4 and 128, not " +
                                       std::to_string(l.compress_ratio)));
    }
  }
  // A draft worker's share: per-token bytes inflated by (target + 1 draft layer) / target.
  const double layers = static_cast<double>(shape.layers.size());
  if (speculative && layers != 0) out.per_full_token *= (layers + 1) / layers;
  return R::success(out);
}

double sglang_dsv4_swa_ratio(const SglangOptions& options) {
  return options.swa_full_tokens_ratio != SglangOptions{}.swa_full_tokens_ratio
             ? options.swa_full_tokens_ratio
             : kSwaFullTokensRatio;
}

Result<PlanReport> plan_sglang_deepseek_v4(PlanReport r, const ModelShape& shape,
                                           const PlanInput& in, double fraction) {
  using R = Result<PlanReport>;
  // The configurator sizes every cache dtype by the fp8 entry (only its unified-KV path, behind
  // an environment gate, stores bf16 latents; SGLang's logs of bf16 runs print the same
  // bytes_per_full_token).
  if (r.estimate.kv_dtype.name != "fp8_ds_mla") {
    r.notes.push_back(
        "SGLang sizes DeepSeek-V4's pools by the fp8 entry's 584 bytes whatever the "
        "cache dtype (DSV4PoolConfigurator)");
  }
  if (in.block_size_tokens != 0 && in.block_size_tokens != kPage) {
    r.notes.push_back("page_size " + std::to_string(kPage) + ", not " +
                      std::to_string(in.block_size_tokens) +
                      ": SGLang sets it for DeepSeek-V4 whatever is given "
                      "(apply_deepseek_v4_defaults)");
  }
  r.block_size_tokens = kPage;
  const bool speculative = !r.speculative.method.empty();
  const double swa_ratio = sglang_dsv4_swa_ratio(in.sglang);
  r.max_running_requests =
      in.sglang.max_running_requests != 0 ? in.sglang.max_running_requests : kRunningRequests;
  const Result<SglangDsv4Bytes> bytes = sglang_dsv4_bytes(shape, swa_ratio, speculative);
  if (!bytes.ok) return R::failure(bytes.error);
  const double per_full_token = bytes.value.per_full_token;
  const uint64_t ring4 = bytes.value.ring4, ring128 = bytes.value.ring128;
  const uint64_t window = bytes.value.window, c128_state_row = bytes.value.c128_state_row;
  // The ratio-128 state of every request slot (max_running_requests + 1), padded to 128 rows.
  const uint64_t slots = r.max_running_requests + 1;
  const uint64_t rows = ceil_div(slots * ring128 + ring128 + 1, 128) * 128;
  const CheckedU64 c128_fixed = CheckedU64(rows) * c128_state_row;
  if (c128_fixed.overflowed())
    return R::failure(
        make_error(kOutOfRange, "sglang.max_running_requests", "state exceeds 2^64-1"));
  const uint64_t available = r.kv_pool_bytes;
  const uint64_t for_tokens = available > c128_fixed.value() ? available - c128_fixed.value() : 0;
  const uint64_t full =
      static_cast<uint64_t>(static_cast<double>(for_tokens) / per_full_token) / kPage * kPage;
  const uint64_t swa = static_cast<uint64_t>(static_cast<double>(full) * swa_ratio) / kPage * kPage;
  r.kv_pool_tokens = full;
  r.swa_pool_tokens = swa;
  char ratio_text[32];
  std::snprintf(ratio_text, sizeof ratio_text, "%g", swa_ratio);
  // Its two log lines as it prints them (GB meaning GiB; the ratio-128 state still 0 there).
  r.notes.push_back(
      "DSV4 memory calculation: bytes_per_full_token=" + two_decimals(per_full_token) +
      ", available_bytes=" + two_decimals(static_cast<double>(available) / kGiB) +
      " GB, c128_state_fixed=" + two_decimals(static_cast<double>(c128_fixed.value()) / kGiB) +
      " GB, full_token=" + std::to_string(full));
  r.notes.push_back(
      "DSV4 pool sizes: full=" + std::to_string(full) + ", swa=" + std::to_string(swa) +
      ", c4=" + std::to_string(full / 4) + ", c128=" + std::to_string(full / 128) +
      ", c4_state=" + std::to_string(swa / window * ring4) + ", c128_state=0 (then " +
      with_commas(slots * ring128) + " rows for " + with_commas(slots) +
      " request slots; swa_full_tokens_ratio " + ratio_text + ", max_running_requests " +
      with_commas(r.max_running_requests) + ", page_size " + std::to_string(kPage) + ")");

  // One request of max_model_len: its share of every pool per full token; the window pool holds
  // each running request's window and a page beside it.
  const uint64_t len = r.max_model_len;
  const double needed = per_full_token * static_cast<double>(len);
  r.kv_bytes_needed = needed < 0x1p64 ? static_cast<uint64_t>(needed) : UINT64_MAX;
  const uint64_t kept = std::min(len, window) + kPage;
  const double by_full = static_cast<double>(full) / static_cast<double>(len);
  const double by_window = static_cast<double>(swa) / static_cast<double>(kept);
  r.max_concurrency = std::min({by_full, by_window, static_cast<double>(r.max_running_requests)});
  r.max_context = swa >= kept ? full : 0;
  r.max_model_len_that_fits = std::min(len, r.max_context);
  r.starts = full > 0;
  if (!r.starts) {
    char fraction_text[32];  // MemoryPoolConfig.__post_init__'s refusal
    std::snprintf(fraction_text, sizeof fraction_text, "%g", fraction);
    r.startup_error =
        std::string(
            "Not enough memory. Please try to increase --mem-fraction-static. Current "
            "value: mem_fraction_static=") +
        fraction_text;
  } else if (r.max_context < len) {
    r.notes.push_back(
        "the pool holds fewer tokens than context_len: SGLang starts, but no request can reach it");
  }
  return R::success(std::move(r));
}

}  // namespace kvscope::engines
