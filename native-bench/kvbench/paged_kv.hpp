// A paged KV cache in memory, as engines lay it out: a pool of pages in one of the engines'
// layouts (KvLayout), a block table per sequence with shuffled physical page ids, ragged lengths,
// and NaN in every slot no sequence owns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "huge_pages.hpp"

namespace kvbench {

enum class KvType { kFp32, kFp16, kBf16, kFp8E4m3, kInt8 };

// Where a page keeps its rows (one row: one token's head_dim values of one KV head).
//   hnd: K and V in pools of their own, a page [kv_head][slot][dim]: one (page, head) is a
//        contiguous run (FlashInfer's HND; TensorRT-LLM's blocks).
//   nhd: K and V in pools of their own, a page [slot][kv_head][dim]: a token's heads side by side
//        (vLLM's FlashAttention backend, get_kv_cache_shape: (2, num_blocks, block_size,
//        num_kv_heads, head_size); FlashInfer's NHD).
//   hnd-joint, nhd-joint: K and V in one page, [K, V][...] (FlashInfer's paged kv_data,
//        (num_pages, 2, ...); TensorRT-LLM's kvFactor dimension inside a block).
enum class KvLayout { kHnd, kNhd, kHndJoint, kNhdJoint };

// "fp32", "fp16", "bf16", "fp8" (= e4m3), "int8"; false for anything else.
bool parse_kv_type(const std::string& name, KvType& out);
const char* kv_type_name(KvType t);
uint32_t kv_type_bytes(KvType t);
// "hnd", "nhd", "hnd-joint", "nhd-joint"; false for anything else.
bool parse_kv_layout(const std::string& name, KvLayout& out);
const char* kv_layout_name(KvLayout layout);

struct AttentionShape {
  uint32_t q_heads = 32;
  uint32_t kv_heads = 8;
  uint32_t head_dim = 128;
  uint32_t page_size = 16;  // tokens per page
  KvType kv_type = KvType::kBf16;
  KvLayout layout = KvLayout::kHnd;
};

struct PagedKv {
  AttentionShape shape;
  std::vector<uint64_t> lengths;             // tokens per sequence
  std::vector<std::vector<uint32_t>> pages;  // block table: physical page ids per sequence
  uint64_t num_pages = 0;                    // pool size (more than the sequences use)
  HugePageVector<uint8_t> pool;              // every page's K and V rows, laid out by shape.layout
  // Byte strides of the layout: one page to the next, one KV head to the next, one slot to the
  // next; V's rows sit v_offset bytes after K's.
  uint64_t page_stride = 0, head_stride = 0, slot_stride = 0, v_offset = 0;
  float k_scale = 1.0f, v_scale = 1.0f;  // per-tensor dequantization scales (fp8, int8)
  std::vector<float> q;                  // batch x q_heads x dim

  uint64_t row_bytes() const;
  // Where K's row of (physical page, KV head, slot) starts in the pool; V's is v_offset further.
  uint64_t row_offset(uint64_t page, uint32_t kv_head, uint64_t slot) const {
    return page * page_stride + kv_head * head_stride + slot * slot_stride;
  }
  // The K or V row of one token of one head of a sequence.
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
