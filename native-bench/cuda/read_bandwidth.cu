// The GPU's memory bandwidth for kvbench --device cuda (CudaDecode::measure_read_bandwidth): a
// read-only streaming kernel and a device-to-device copy, timed by CUDA events.
#include <cuda_runtime.h>

#include <algorithm>

#include "decode_attention_cuda.hpp"

namespace kvbench {
namespace {

__global__ void read_stream(const uint4* p, size_t n, unsigned* sink) {
  unsigned x = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == 0x12345678u) *sink = x;  // keeps the loads
}

}  // namespace

double CudaDecode::measure_read_bandwidth(nlohmann::ordered_json& detail) {
  const size_t bytes = size_t(2) << 30;
  uint4 *a = nullptr, *b = nullptr;
  unsigned* sink = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess || cudaMalloc(&sink, 4) != cudaSuccess) return 0;
  cudaMemset(a, 1, bytes);
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, 0);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float best_read = 1e30f, best_copy = 1e30f;
  for (int r = 0; r < 10; ++r) {
    float ms = 0;
    cudaEventRecord(start);
    read_stream<<<p.multiProcessorCount * 8, 512>>>(a, bytes / 16, sink);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&ms, start, stop);
    best_read = std::min(best_read, ms);
    cudaEventRecord(start);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&ms, start, stop);
    best_copy = std::min(best_copy, ms);
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(sink);
  const double read = double(bytes) / (best_read * 1e-3), copy = 2.0 * double(bytes) / (best_copy * 1e-3);
  detail = {{"kernel", "read-only streaming kernel, 16-byte loads, 2 GiB"}, {"statistic", "best of 10, CUDA events"},
            {"copy_bytes_per_s", copy}, {"copy_counts", "read + write bytes of a 2 GiB cudaMemcpy D2D"}};
  return read;
}

}  // namespace kvbench
