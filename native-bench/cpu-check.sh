#!/usr/bin/env bash
# The CPU measurements the site publishes, in one run on an otherwise idle machine:
#   1. builds kvbench (build/native, Release, -march=native),
#   2. for each configuration below, kvbench builds a paged KV cache of Llama-3.1-8B's shape
#      (16-token pages, shuffled), runs the CPU kernel on every hardware thread, checks it against
#      the fp64 reference (exit 1 on a mismatch), times it and measures the read bandwidth,
#   3. writes one kvscope.measured/1 JSON per configuration into OUT_DIR and prints a summary.
# Usage: native-bench/cpu-check.sh OUT_DIR   (web/data/measured publishes them)
set -euo pipefail
out="${1:?usage: native-bench/cpu-check.sh OUT_DIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$(dirname "$0")/.."
out="$(realpath --relative-to=. "$out")"  # the records' commands name it from the checkout
bash scripts/build-native.sh >/dev/null
kvbench=build/native/native-bench/kvbench
# One long sequence (its 8 KV heads shared by the threads), the batch x context the page opens
# near, a short context, fp8 KV (half the bytes for the same arithmetic), and 64-token pages.
configs=(
  "cpu-llama-3.1-8b-bf16-b1-128k  --batch 1 --context 131072"
  "cpu-llama-3.1-8b-bf16-b4-32k   --batch 4 --context 32768"
  "cpu-llama-3.1-8b-bf16-b4-4k    --batch 4 --context 4096"
  "cpu-llama-3.1-8b-fp8-b4-32k    --batch 4 --context 32768 --kv-dtype fp8"
  "cpu-llama-3.1-8b-bf16-b4-32k-p64 --batch 4 --context 32768 --page-size 64"
)
for c in "${configs[@]}"; do
  read -r name args <<<"$c"
  # shellcheck disable=SC2086
  "$kvbench" attention --model llama-3.1-8b $args --out "$out/$name.json" >/dev/null
  python3 - "$out/$name.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{r['problem']['kv_dtype']:>5} {r['problem']['batch']} x {r['problem']['lengths']:>7}, "
      f"{r['problem']['page_size']:>2}-token pages: "
      f"{r['timing']['median_s'] * 1e3:7.1f} ms, {r['achieved_bytes_per_s'] / 1e9:5.2f} GB/s of "
      f"{r['measured_bandwidth_bytes_per_s'] / 1e9:5.2f} GB/s read = "
      f"{100 * r['bandwidth_efficiency']:.1f}% ({100 * r['paged_read']['efficiency']:.1f}% of the "
      f"{r['paged_read']['bytes_per_s'] / 1e9:.2f} GB/s paged read), correct: {r['correctness']['pass']}")
PY
done
echo "cpu-check: records in $out"
