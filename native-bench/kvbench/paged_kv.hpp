// A paged KV cache in memory, as engines lay it out: a pool of pages [page][kv_head][slot][dim]
// for K and for V (HND, one (page, head) is a contiguous run), a block table per sequence with
// shuffled physical page ids, ragged lengths, and NaN in every slot no sequence owns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "huge_pages.hpp"

namespace kvbench {

enum class KvType { kFp32, kFp16, kBf16, kFp8E4m3, kInt8 };

// "fp32", "fp16", "bf16", "fp8" (= e4m3), "int8"; false for anything else.
bool parse_kv_type(const std::string& name, KvType& out);
const char* kv_type_name(KvType t);
uint32_t kv_type_bytes(KvType t);

struct AttentionShape {
  uint32_t q_heads = 32;
  uint32_t kv_heads = 8;
  uint32_t head_dim = 128;
  uint32_t page_size = 16;  // tokens per page
  KvType kv_type = KvType::kBf16;
};

struct PagedKv {
  AttentionShape shape;
  std::vector<uint64_t> lengths;             // tokens per sequence
  std::vector<std::vector<uint32_t>> pages;  // block table: physical page ids per sequence
  uint64_t num_pages = 0;                    // pool size (more than the sequences use)
  HugePageVector<uint8_t> k, v;              // pools, num_pages x kv_heads x page x dim values
  float k_scale = 1.0f, v_scale = 1.0f;      // per-tensor dequantization scales (fp8, int8)
  std::vector<float> q;                      // batch x q_heads x dim

  uint64_t page_bytes() const;  // one (page, head) run
  // Bytes of the K or V values of one token of one head, and where they start.
  const uint8_t* k_row(uint64_t seq, uint64_t token, uint32_t kv_head) const;
  const uint8_t* v_row(uint64_t seq, uint64_t token, uint32_t kv_head) const;
  // Bytes decode attention must read: K and V of every token, the queries, the outputs
  // (fp32) and the block tables.
  uint64_t bytes_moved() const;
};

// Random, reproducible contents (seeded), pages shuffled in a pool with `spare_pages` unused
// ones, unowned slots and pages poisoned with NaN (int8 has no NaN: left random).
PagedKv make_paged_kv(const AttentionShape& shape, const std::vector<uint64_t>& lengths,
                      uint64_t seed, uint64_t spare_pages = 8);

// One stored value as the kernel sees it (after the per-tensor scale).
float dequantize(KvType t, const uint8_t* p, float scale);

}  // namespace kvbench
