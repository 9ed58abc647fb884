#!/usr/bin/env bash
# The GPU check of issue 6, in one run on one GPU (under 8 minutes on an H200):
#   1. builds kvbench with the CUDA kernel (build/gpu; sm_90 unless CUDA_ARCH says otherwise),
#   2. for each configuration below, kvbench builds a paged KV cache with shuffled pages and
#      ragged lengths, poisons the outputs, runs the CUDA kernel, checks it against the CPU fp64
#      reference (exit 1 on a mismatch), times it and measures the GPU's read and copy bandwidth,
#   3. writes one kvscope.measured/1 JSON per configuration into OUT_DIR and prints a summary.
# Usage: native-bench/gpu-check.sh OUT_DIR
# Without nlohmann-json3-dev on the GPU machine, pass its headers' folder (the one holding
# nlohmann/) as NLOHMANN_INCLUDE=...
set -euo pipefail
out="${1:?usage: native-bench/gpu-check.sh OUT_DIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$(dirname "$0")/.."
extra=()
if [ -n "${NLOHMANN_INCLUDE:-}" ]; then extra+=("-DKVSCOPE_NLOHMANN_INCLUDE=$NLOHMANN_INCLUDE"); fi
cmake -S . -B build/gpu -DCMAKE_BUILD_TYPE=Release -DKVSCOPE_BUILD_TESTS=OFF \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" "${extra[@]}" >/dev/null
cmake --build build/gpu -j "$(nproc)" --target kvbench
kvbench=build/gpu/native-bench/kvbench
# Configurations: GQA (Llama-3.1-8B, g = 4) at small batch x long context (split-KV) and at the
# issue's target shape (>= 16 sequences, >= 8K), fp8 KV, a ragged batch, MHA (g = 1), d = 256.
configs=(
  "llama8b-bf16-b1-128k    --model llama-3.1-8b --batch 1 --context 131072"
  "llama8b-bf16-b16-8k     --model llama-3.1-8b --batch 16 --context 8192"
  "llama8b-bf16-b16-32k    --model llama-3.1-8b --batch 16 --context 32768"
  "llama8b-fp8-b16-32k     --model llama-3.1-8b --batch 16 --context 32768 --kv-dtype fp8"
  "llama8b-bf16-ragged     --model llama-3.1-8b --batch 32 --lengths lognormal:mean=8000,p99=60000"
  "llama8b-fp16-b64-4k     --model llama-3.1-8b --batch 64 --context 4096 --kv-dtype fp16"
  "llama2-7b-mha-b16-8k    --model llama-2-7b --batch 16 --context 8192 --kv-dtype fp16"
  "gemma2-9b-d256-b16-8k   --model gemma-2-9b --batch 16 --context 8192"
)
status=0
for c in "${configs[@]}"; do
  read -r name args <<<"$c"
  # shellcheck disable=SC2086
  if ! "$kvbench" attention $args --page-size 16 --device cuda --threads "$(nproc)" --out "$out/$name.json"; then
    echo "gpu-check: $name FAILED" >&2
    status=1
  fi
done
echo "gpu-check: records in $out"
exit $status
