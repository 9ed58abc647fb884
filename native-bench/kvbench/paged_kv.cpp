// Paged KV pools: layout, seeded contents, poisoning, and the dtype conversions.
#include "paged_kv.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "enum_names.hpp"

namespace kvbench {
namespace {

float fp16_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: renormalize
      int e = -1;
      uint32_t m = mant;
      do {
        ++e;
        m <<= 1;
      } while ((m & 0x400u) == 0);
      bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((m & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bf16_to_float(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// OCP fp8 e4m3 (the "fn" variant engines use): bias 7, no infinities, 0x7f/0xff are NaN.
struct Fp8Table {
  float value[256];
  Fp8Table() {
    for (int i = 0; i < 256; ++i) {
      const int sign = i >> 7, exp = (i >> 3) & 0xf, mant = i & 7;
      float v;
      if (exp == 0xf && mant == 7)
        v = std::nanf("");
      else if (exp == 0)
        v = std::ldexp(static_cast<float>(mant) / 8.0f, -6);
      else
        v = std::ldexp(1.0f + static_cast<float>(mant) / 8.0f, exp - 7);
      value[i] = sign ? -v : v;
    }
  }
};
const Fp8Table kFp8;

}  // namespace

bool parse_kv_type(const std::string& name, KvType& out) {
  static const std::pair<const char*, KvType> kNames[] = {
      {"fp32", KvType::kFp32},   {"fp16", KvType::kFp16},        {"bf16", KvType::kBf16},
      {"fp8", KvType::kFp8E4m3}, {"fp8_e4m3", KvType::kFp8E4m3}, {"int8", KvType::kInt8}};
  for (const auto& [n, t] : kNames) {
    if (name == n) {
      out = t;
      return true;
    }
  }
  return false;
}

const char* kv_type_name(KvType t) {
  switch (t) {
    case KvType::kFp32:
      return "fp32";
    case KvType::kFp16:
      return "fp16";
    case KvType::kBf16:
      return "bf16";
    case KvType::kFp8E4m3:
      return "fp8";
    case KvType::kInt8:
      return "int8";
  }
  return "?";
}

bool parse_kv_layout(const std::string& name, KvLayout& out) {
  static const KvLayout kAll[] = {KvLayout::kHnd, KvLayout::kNhd, KvLayout::kHndJoint,
                                  KvLayout::kNhdJoint};
  return parse_enum_name(name, kAll, kv_layout_name, out);
}

const char* kv_layout_name(KvLayout layout) {
  switch (layout) {
    case KvLayout::kHnd:
      return "hnd";
    case KvLayout::kNhd:
      return "nhd";
    case KvLayout::kHndJoint:
      return "hnd-joint";
    case KvLayout::kNhdJoint:
      return "nhd-joint";
  }
  return "?";
}

uint32_t kv_type_bytes(KvType t) {
  switch (t) {
    case KvType::kFp32:
      return 4;
    case KvType::kFp16:
    case KvType::kBf16:
      return 2;
    default:
      return 1;
  }
}

float dequantize(KvType t, const uint8_t* p, float scale) {
  switch (t) {
    case KvType::kFp32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case KvType::kFp16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return fp16_to_float(h);
    }
    case KvType::kBf16: {
      uint16_t b;
      std::memcpy(&b, p, 2);
      return bf16_to_float(b);
    }
    case KvType::kFp8E4m3:
      return kFp8.value[*p] * scale;
    case KvType::kInt8:
      return static_cast<float>(static_cast<int8_t>(*p)) * scale;
  }
  return 0;
}

uint64_t PagedKv::row_bytes() const {
  return uint64_t{shape.head_dim} * kv_type_bytes(shape.kv_type);
}

const uint8_t* PagedKv::k_row(uint64_t seq, uint64_t token, uint32_t kv_head) const {
  const uint64_t p = shape.page_size;
  return pool.data() + row_offset(pages[seq][token / p], kv_head, token % p);
}

const uint8_t* PagedKv::v_row(uint64_t seq, uint64_t token, uint32_t kv_head) const {
  return k_row(seq, token, kv_head) + v_offset;
}

uint64_t PagedKv::bytes_moved() const {
  const uint64_t tokens = std::accumulate(lengths.begin(), lengths.end(), uint64_t{0});
  const uint64_t row = row_bytes();
  uint64_t table = 0;
  for (const auto& p : pages) table += p.size() * 4;
  const uint64_t qo = 2ull * lengths.size() * shape.q_heads * shape.head_dim * 4;
  return 2 * tokens * shape.kv_heads * row + qo + table;
}

PagedKv make_paged_kv(const AttentionShape& shape, const std::vector<uint64_t>& lengths,
                      uint64_t seed, uint64_t spare_pages) {
  PagedKv kv;
  kv.shape = shape;
  kv.lengths = lengths;
  std::mt19937_64 rng(seed);
  uint64_t used = 0;
  for (uint64_t len : lengths) used += (len + shape.page_size - 1) / shape.page_size;
  kv.num_pages = used + spare_pages;
  std::vector<uint32_t> ids(kv.num_pages);
  std::iota(ids.begin(), ids.end(), 0u);
  std::shuffle(ids.begin(), ids.end(), rng);  // pages far apart and out of order
  uint64_t next = 0;
  for (uint64_t len : lengths) {
    const uint64_t n = (len + shape.page_size - 1) / shape.page_size;
    kv.pages.emplace_back(ids.begin() + static_cast<std::ptrdiff_t>(next),
                          ids.begin() + static_cast<std::ptrdiff_t>(next + n));
    next += n;
  }
  const uint64_t row = kv.row_bytes(), page_run = uint64_t{shape.page_size} * shape.kv_heads * row;
  const bool hnd = shape.layout == KvLayout::kHnd || shape.layout == KvLayout::kHndJoint;
  const bool joint = shape.layout == KvLayout::kHndJoint || shape.layout == KvLayout::kNhdJoint;
  kv.head_stride = hnd ? shape.page_size * row : row;
  kv.slot_stride = hnd ? row : shape.kv_heads * row;
  kv.page_stride = joint ? 2 * page_run : page_run;
  kv.v_offset = joint ? page_run : kv.num_pages * page_run;
  kv.pool.resize(2 * kv.num_pages * page_run);
  // Values of moderate magnitude written as bit patterns directly (fast for GB-sized pools):
  // sign and mantissa random, exponent in a narrow band around 1.
  const uint32_t bytes = kv_type_bytes(shape.kv_type);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next_random = [&x] {  // xorshift64*
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return x * 0x2545F4914F6CDD1Dull;
  };
  for (uint64_t i = 0; i < kv.pool.size(); i += bytes) {
    const uint64_t r = next_random();
    switch (shape.kv_type) {
      case KvType::kFp32: {
        const uint32_t bits = static_cast<uint32_t>(((r >> 63) << 31) |
                                                    ((124 + (r >> 8) % 4) << 23) | (r & 0x7fffff));
        std::memcpy(&kv.pool[i], &bits, 4);
        break;
      }
      case KvType::kBf16: {
        const uint16_t bits =
            static_cast<uint16_t>(((r >> 63) << 15) | ((124 + (r >> 8) % 4) << 7) | (r & 0x7f));
        std::memcpy(&kv.pool[i], &bits, 2);
        break;
      }
      case KvType::kFp16: {
        const uint16_t bits =
            static_cast<uint16_t>(((r >> 63) << 15) | ((12 + (r >> 8) % 4) << 10) | (r & 0x3ff));
        std::memcpy(&kv.pool[i], &bits, 2);
        break;
      }
      case KvType::kFp8E4m3:
        kv.pool[i] = static_cast<uint8_t>(((r >> 63) << 7) | ((4 + (r >> 8) % 4) << 3) | (r & 7));
        break;
      case KvType::kInt8:
        kv.pool[i] = static_cast<uint8_t>(r);
        break;
    }
  }
  if (shape.kv_type == KvType::kInt8) kv.k_scale = kv.v_scale = 1.0f / 64;
  if (shape.kv_type == KvType::kFp8E4m3) kv.k_scale = kv.v_scale = 0.5f;
  // Poison every slot no sequence owns: spare pages and the tail of each last page.
  const uint8_t nan_bytes[4][4] = {{0x00, 0x00, 0xc0, 0x7f}, {0x00, 0x7e}, {0xc0, 0x7f}, {0x7f}};
  const uint8_t* nan = shape.kv_type == KvType::kFp32   ? nan_bytes[0]
                       : shape.kv_type == KvType::kFp16 ? nan_bytes[1]
                       : shape.kv_type == KvType::kBf16 ? nan_bytes[2]
                                                        : nan_bytes[3];
  if (shape.kv_type != KvType::kInt8) {
    std::vector<bool> owned(kv.num_pages, false);
    for (const auto& p : kv.pages)
      for (uint32_t id : p) owned[id] = true;
    auto poison = [&](uint64_t page, uint64_t first_slot) {
      for (uint32_t h = 0; h < shape.kv_heads; ++h) {
        for (uint64_t slot = first_slot; slot < shape.page_size; ++slot) {
          const uint64_t o = kv.row_offset(page, h, slot);
          for (uint64_t i = 0; i < row; i += bytes) {
            std::memcpy(&kv.pool[o + i], nan, bytes);
            std::memcpy(&kv.pool[kv.v_offset + o + i], nan, bytes);
          }
        }
      }
    };
    for (uint64_t p = 0; p < kv.num_pages; ++p)
      if (!owned[p]) poison(p, 0);
    for (uint64_t s = 0; s < lengths.size(); ++s) {
      if (lengths[s] % shape.page_size != 0)
        poison(kv.pages[s].back(), lengths[s] % shape.page_size);
    }
  }
  // Queries as a bf16 model computes them: bf16 values (held in fp32), whatever the cache's type.
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  kv.q.resize(lengths.size() * shape.q_heads * shape.head_dim);
  for (float& x : kv.q) {
    uint32_t bits;
    const float f = uniform(rng);
    std::memcpy(&bits, &f, 4);
    x = bf16_to_float(static_cast<uint16_t>(bits >> 16));  // truncated: any bf16 value will do
  }
  return kv;
}

}  // namespace kvbench
