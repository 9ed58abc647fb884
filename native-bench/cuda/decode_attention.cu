// CUDA decode attention over a paged KV cache (HND pages, block tables, ragged lengths).
// One CTA per (sequence, KV head, chunk of tokens): it holds the g query heads of the group, so
// each K and V byte is read once. Lanes load 16 bytes at a time (8 bf16/fp16 values, 16 fp8);
// a row is spread over D x bytes / 16 lanes, so a warp works on several tokens at once, each lane
// group keeping its own online-softmax state (fp32), merged in shared memory at the end. Long
// sequences at small batch are split into chunks (split-KV) and merged by log-sum-exp in a second
// kernel (shared/docs/research/kernels.md §1.2, §7).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "decode_attention_cuda.hpp"

namespace kvbench {
namespace {

constexpr int kThreads = 128;

#define KVBENCH_CUDA_OK(call)                                   \
  do {                                                          \
    if ((call) != cudaSuccess) return cudaGetLastError();       \
  } while (0)

// 16 bytes of K or V as floats: eight 16-bit values (bf16 or fp16, converted in pairs) or
// sixteen fp8 values (scaled).
__device__ inline float2 to_float2(__nv_bfloat162 v) { return __bfloat1622float2(v); }
__device__ inline float2 to_float2(__half2 v) { return __half22float2(v); }

template <typename T>
struct Vec {
  using Pair = typename std::conditional<std::is_same<T, __half>::value, __half2, __nv_bfloat162>::type;
  static constexpr int kN = 8;
  __device__ static void load(const uint8_t* p, float, float* out) {
    const uint4 raw = *reinterpret_cast<const uint4*>(p);
    const Pair* h = reinterpret_cast<const Pair*>(&raw);
    for (int i = 0; i < 4; ++i) {
      const float2 f = to_float2(h[i]);
      out[2 * i] = f.x;
      out[2 * i + 1] = f.y;
    }
  }
};
template <> struct Vec<__nv_fp8_e4m3> {
  static constexpr int kN = 16;
  __device__ static void load(const uint8_t* p, float scale, float* out) {
    const uint4 raw = *reinterpret_cast<const uint4*>(p);
    const __nv_fp8x2_storage_t* pairs = reinterpret_cast<const __nv_fp8x2_storage_t*>(&raw);
    for (int i = 0; i < 8; ++i) {
      const __half2 h = __half2(__nv_cvt_fp8x2_to_halfraw2(pairs[i], __NV_E4M3));
      const float2 f = __half22float2(h);
      out[2 * i] = f.x * scale;
      out[2 * i + 1] = f.y * scale;
    }
  }
};

struct Unit {
  int seq, kv_head, begin, end, partial;  // partial: workspace slot, or -1 when unsplit
};

struct Args {
  const uint8_t* k;
  const uint8_t* v;
  const int* page_ids;   // CSR: pages of sequence s at page_ids[page_start[s] ...]
  const int* page_start;
  const float* q;        // [seq][q_head][D]
  float* out;            // [seq][q_head][D]
  float* part_o;         // [slot][G][D] unnormalized
  float* part_ml;        // [slot][G][2]: running max, sum
  const Unit* units;
  int kv_heads, q_heads, page_size;
  float k_scale, v_scale, softmax_scale;
};

template <typename T, int D, int G>
__global__ void __launch_bounds__(kThreads) decode_split(Args a) {
  constexpr int kVecBytes = 16;
  constexpr int kN = Vec<T>::kN;
  constexpr int kLanes = D / kN;                 // lanes holding one row
  constexpr int kGroups = kThreads / kLanes;     // rows in flight per CTA
  static_assert(D % kN == 0 && 32 % kLanes == 0, "head_dim must fill whole 16-byte lanes");
  const Unit u = a.units[blockIdx.x];
  const int lane = threadIdx.x % kLanes, group = threadIdx.x / kLanes;
  const size_t row_bytes = size_t{D} * sizeof(T);
  const size_t page_bytes = row_bytes * a.page_size;
  float q[G][kN];
  for (int h = 0; h < G; ++h) {
    const float* qh = a.q + (size_t(u.seq) * a.q_heads + size_t(u.kv_head) * G + h) * D + lane * kN;
    for (int i = 0; i < kN; ++i) q[h][i] = qh[i] * a.softmax_scale;
  }
  float m[G], l[G], acc[G][kN];
  for (int h = 0; h < G; ++h) {
    m[h] = -INFINITY;
    l[h] = 0.f;
    for (int i = 0; i < kN; ++i) acc[h][i] = 0.f;
  }
  const int* pages = a.page_ids + a.page_start[u.seq];
  // Every lane runs the same number of steps (the shuffles need the whole warp); rows past the
  // chunk's end load nothing and change nothing.
  for (int t0 = u.begin; t0 < u.end; t0 += kGroups) {
    const int t = t0 + group;
    const bool valid = t < u.end;
    float kf[kN], vf[kN];
    if (valid) {
      const size_t base = (size_t(pages[t / a.page_size]) * a.kv_heads + u.kv_head) * page_bytes +
                          size_t(t % a.page_size) * row_bytes + size_t(lane) * kVecBytes;
      Vec<T>::load(a.k + base, a.k_scale, kf);
      Vec<T>::load(a.v + base, a.v_scale, vf);  // issued early: its latency overlaps the dots
    } else {
      for (int i = 0; i < kN; ++i) kf[i] = vf[i] = 0.f;
    }
    for (int h = 0; h < G; ++h) {
      float s = 0.f;
      for (int i = 0; i < kN; ++i) s += q[h][i] * kf[i];
      for (int o = kLanes / 2; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o, kLanes);
      if (!valid) continue;
      const float m_new = fmaxf(m[h], s);
      const float c = __expf(m[h] - m_new), p = __expf(s - m_new);
      l[h] = l[h] * c + p;
      for (int i = 0; i < kN; ++i) acc[h][i] = acc[h][i] * c + p * vf[i];
      m[h] = m_new;
    }
  }
  // Merge the row groups of the CTA: max, then rescaled sums, through shared memory.
  __shared__ float sm[kGroups][G], sl[kGroups][G];
  __shared__ float so[G][D];
  if (lane == 0) {
    for (int h = 0; h < G; ++h) {
      sm[group][h] = m[h];
      sl[group][h] = l[h];
    }
  }
  for (int idx = threadIdx.x; idx < G * D; idx += kThreads) so[idx / D][idx % D] = 0.f;
  __syncthreads();
  for (int h = 0; h < G; ++h) {
    float mx = -INFINITY;
    for (int gi = 0; gi < kGroups; ++gi) mx = fmaxf(mx, sm[gi][h]);
    const float w = m[h] == -INFINITY ? 0.f : __expf(m[h] - mx);
    for (int i = 0; i < kN; ++i) atomicAdd(&so[h][lane * kN + i], acc[h][i] * w);
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < G * D; idx += kThreads) {
    const int h = idx / D, i = idx % D;
    float mx = -INFINITY, sum = 0.f;
    for (int gi = 0; gi < kGroups; ++gi) mx = fmaxf(mx, sm[gi][h]);
    for (int gi = 0; gi < kGroups; ++gi) sum += sm[gi][h] == -INFINITY ? 0.f : sl[gi][h] * __expf(sm[gi][h] - mx);
    if (u.partial < 0) {
      a.out[(size_t(u.seq) * a.q_heads + size_t(u.kv_head) * G + h) * D + i] = so[h][i] / sum;
    } else {
      a.part_o[(size_t(u.partial) * G + h) * D + i] = so[h][i];
      if (i == 0) {
        a.part_ml[(size_t(u.partial) * G + h) * 2] = mx;
        a.part_ml[(size_t(u.partial) * G + h) * 2 + 1] = sum;
      }
    }
  }
}

// One block per (sequence, KV head) that was split: combine its chunks by log-sum-exp.
struct MergeItem {
  int seq, kv_head, first, count;  // workspace slots first .. first + count - 1
};
__global__ void merge_splits(Args a, const MergeItem* items, int g, int d) {
  const MergeItem it = items[blockIdx.x];
  for (int idx = threadIdx.x; idx < g * d; idx += blockDim.x) {
    const int h = idx / d, i = idx % d;
    float mx = -INFINITY;
    for (int c = 0; c < it.count; ++c) mx = fmaxf(mx, a.part_ml[(size_t(it.first + c) * g + h) * 2]);
    float sum = 0.f, o = 0.f;
    for (int c = 0; c < it.count; ++c) {
      const size_t slot = size_t(it.first + c) * g + h;
      const float w = __expf(a.part_ml[slot * 2] - mx);
      sum += a.part_ml[slot * 2 + 1] * w;
      o += a.part_o[slot * d + i] * w;
    }
    a.out[(size_t(it.seq) * a.q_heads + size_t(it.kv_head) * g + h) * d + i] = o / sum;
  }
}

using Launch = void (*)(Args, int, cudaStream_t);
template <typename T, int D, int G>
void launch(Args a, int blocks, cudaStream_t s) { decode_split<T, D, G><<<blocks, kThreads, 0, s>>>(a); }

template <typename T, int D>
Launch pick_group(int g) {
  switch (g) {
    case 1: return launch<T, D, 1>;
    case 2: return launch<T, D, 2>;
    case 4: return launch<T, D, 4>;
    case 8: return launch<T, D, 8>;
    case 16: return launch<T, D, 16>;
    default: return nullptr;
  }
}

template <typename T>
Launch pick(int d, int g) {
  switch (d) {
    case 64: return pick_group<T, 64>(g);
    case 128: return pick_group<T, 128>(g);
    case 256: return pick_group<T, 256>(g);
    default: return nullptr;
  }
}

struct Layer {
  uint8_t *k = nullptr, *v = nullptr;
  int *page_ids = nullptr, *page_start = nullptr;
  float *q = nullptr, *out = nullptr, *part_o = nullptr, *part_ml = nullptr;
  Unit* units = nullptr;
  MergeItem* merges = nullptr;
  int unit_count = 0, merge_count = 0;
  Args args{};
  Launch kernel = nullptr;
  int g = 0, d = 0;
  size_t out_floats = 0;
};

}  // namespace

struct CudaDecode::Impl {
  std::vector<Layer> layers;
  cudaDeviceProp prop{};
  int device = 0;
  ~Impl() {
    for (Layer& l : layers) {
      for (void* p : {(void*)l.k, (void*)l.v, (void*)l.page_ids, (void*)l.page_start, (void*)l.q, (void*)l.out,
                      (void*)l.part_o, (void*)l.part_ml, (void*)l.units, (void*)l.merges}) {
        if (p) cudaFree(p);
      }
    }
  }
};

static cudaError_t upload(const PagedKv& kv, const cudaDeviceProp& prop, Layer& l, std::string& why) {
  const AttentionShape& s = kv.shape;
  l.g = int(s.q_heads / s.kv_heads);
  l.d = int(s.head_dim);
  switch (s.kv_type) {
    case KvType::kBf16: l.kernel = pick<__nv_bfloat16>(l.d, l.g); break;
    case KvType::kFp16: l.kernel = pick<__half>(l.d, l.g); break;
    case KvType::kFp8E4m3: l.kernel = pick<__nv_fp8_e4m3>(l.d, l.g); break;
    default: break;
  }
  if (!l.kernel) {
    why = std::string("no CUDA kernel for KV ") + kv_type_name(s.kv_type) + ", head_dim " + std::to_string(l.d) +
          ", group size " + std::to_string(l.g) + " (bf16/fp16/fp8; 64/128/256; 1/2/4/8/16)";
    return cudaSuccess;
  }
  if (s.layout != KvLayout::kHnd) {  // the kernel's addressing is hnd's (kvbench refuses others)
    why = std::string("the CUDA kernel reads hnd pages, not ") + kv_layout_name(s.layout);
    return cudaSuccess;
  }
  const size_t half = kv.v_offset;  // hnd: K's pool, then V's
  KVBENCH_CUDA_OK(cudaMalloc(&l.k, half));
  KVBENCH_CUDA_OK(cudaMalloc(&l.v, half));
  KVBENCH_CUDA_OK(cudaMemcpy(l.k, kv.pool.data(), half, cudaMemcpyHostToDevice));
  KVBENCH_CUDA_OK(cudaMemcpy(l.v, kv.pool.data() + half, half, cudaMemcpyHostToDevice));
  std::vector<int> ids, starts;
  for (const auto& p : kv.pages) {
    starts.push_back(int(ids.size()));
    ids.insert(ids.end(), p.begin(), p.end());
  }
  ids.push_back(0);
  KVBENCH_CUDA_OK(cudaMalloc(&l.page_ids, ids.size() * sizeof(int)));
  KVBENCH_CUDA_OK(cudaMalloc(&l.page_start, starts.size() * sizeof(int)));
  KVBENCH_CUDA_OK(cudaMemcpy(l.page_ids, ids.data(), ids.size() * sizeof(int), cudaMemcpyHostToDevice));
  KVBENCH_CUDA_OK(cudaMemcpy(l.page_start, starts.data(), starts.size() * sizeof(int), cudaMemcpyHostToDevice));
  KVBENCH_CUDA_OK(cudaMalloc(&l.q, kv.q.size() * sizeof(float)));
  KVBENCH_CUDA_OK(cudaMemcpy(l.q, kv.q.data(), kv.q.size() * sizeof(float), cudaMemcpyHostToDevice));
  l.out_floats = kv.lengths.size() * s.q_heads * s.head_dim;
  KVBENCH_CUDA_OK(cudaMalloc(&l.out, l.out_floats * sizeof(float)));
  // Split-KV plan: about two waves of CTAs; chunks of at least 256 tokens, whole pages.
  const long heads = long(kv.lengths.size()) * s.kv_heads;
  const long want = 2L * prop.multiProcessorCount;
  uint64_t longest = 1;
  for (uint64_t len : kv.lengths) longest = std::max(longest, len);
  uint64_t chunk = longest;
  if (heads < want) {
    chunk = std::max<uint64_t>(256, (longest * heads + want - 1) / want);
    chunk = (chunk + s.page_size - 1) / s.page_size * s.page_size;
  }
  std::vector<Unit> units;
  std::vector<MergeItem> merges;
  int slots = 0;
  for (int b = 0; b < int(kv.lengths.size()); ++b) {
    for (int h = 0; h < int(s.kv_heads); ++h) {
      const int len = int(kv.lengths[b]);
      const int pieces = int((kv.lengths[b] + chunk - 1) / chunk);
      if (pieces > 1) merges.push_back({b, h, slots, pieces});
      for (int c = 0; c < pieces; ++c) {
        units.push_back({b, h, int(c * chunk), std::min(len, int((c + 1) * chunk)), pieces > 1 ? slots++ : -1});
      }
    }
  }
  l.unit_count = int(units.size());
  l.merge_count = int(merges.size());
  KVBENCH_CUDA_OK(cudaMalloc(&l.units, units.size() * sizeof(Unit)));
  KVBENCH_CUDA_OK(cudaMemcpy(l.units, units.data(), units.size() * sizeof(Unit), cudaMemcpyHostToDevice));
  if (!merges.empty()) {
    KVBENCH_CUDA_OK(cudaMalloc(&l.merges, merges.size() * sizeof(MergeItem)));
    KVBENCH_CUDA_OK(cudaMemcpy(l.merges, merges.data(), merges.size() * sizeof(MergeItem), cudaMemcpyHostToDevice));
    KVBENCH_CUDA_OK(cudaMalloc(&l.part_o, size_t(slots) * l.g * l.d * sizeof(float)));
    KVBENCH_CUDA_OK(cudaMalloc(&l.part_ml, size_t(slots) * l.g * 2 * sizeof(float)));
    KVBENCH_CUDA_OK(cudaMemset(l.part_o, 0xff, size_t(slots) * l.g * l.d * sizeof(float)));  // NaN poison
  }
  KVBENCH_CUDA_OK(cudaMemset(l.out, 0xff, l.out_floats * sizeof(float)));  // NaN poison
  l.args = Args{l.k, l.v, l.page_ids, l.page_start, l.q, l.out, l.part_o, l.part_ml, l.units,
                int(s.kv_heads), int(s.q_heads), int(s.page_size), kv.k_scale, kv.v_scale,
                1.0f / std::sqrt(float(s.head_dim))};
  return cudaSuccess;
}

std::unique_ptr<CudaDecode> CudaDecode::create(const std::vector<PagedKv>& caches, std::string& why) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    why = "no CUDA device is visible";
    return nullptr;
  }
  auto decode = std::unique_ptr<CudaDecode>(new CudaDecode());
  decode->impl_ = std::make_unique<Impl>();
  cudaGetDeviceProperties(&decode->impl_->prop, 0);
  for (const PagedKv& kv : caches) {
    decode->impl_->layers.emplace_back();
    if (upload(kv, decode->impl_->prop, decode->impl_->layers.back(), why) != cudaSuccess) {
      why = std::string("CUDA: ") + cudaGetErrorString(cudaGetLastError());
      return nullptr;
    }
    if (!decode->impl_->layers.back().kernel) return nullptr;
  }
  return decode;
}

CudaDecode::~CudaDecode() = default;

void CudaDecode::run() {
  for (Layer& l : impl_->layers) {
    l.kernel(l.args, l.unit_count, nullptr);
    if (l.merge_count) merge_splits<<<l.merge_count, kThreads>>>(l.args, l.merges, l.g, l.d);
  }
}

void CudaDecode::synchronize() { cudaDeviceSynchronize(); }

void CudaDecode::copy_outputs(std::vector<std::vector<float>>& outputs) {
  cudaDeviceSynchronize();
  for (size_t i = 0; i < impl_->layers.size(); ++i) {
    cudaMemcpy(outputs[i].data(), impl_->layers[i].out, impl_->layers[i].out_floats * sizeof(float), cudaMemcpyDeviceToHost);
  }
}

nlohmann::ordered_json CudaDecode::device_json() const {
  const cudaDeviceProp& p = impl_->prop;
  int sm_clock = 0, mem_clock = 0, bus = 0, driver = 0, runtime = 0;
  cudaDeviceGetAttribute(&sm_clock, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&mem_clock, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0);
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  return {{"kind", "gpu"}, {"name", p.name}, {"compute_capability", std::to_string(p.major) + "." + std::to_string(p.minor)},
          {"sms", p.multiProcessorCount}, {"sm_clock_khz", sm_clock}, {"memory_clock_khz", mem_clock},
          {"memory_bus_bits", bus}, {"l2_bytes", p.l2CacheSize}, {"memory_bytes", p.totalGlobalMem},
          {"cuda_driver", driver}, {"cuda_runtime", runtime},
          {"kernel", "decode_split: CTA per (sequence, KV head, chunk), 16-byte loads, split-KV + log-sum-exp merge"}};
}

}  // namespace kvbench
