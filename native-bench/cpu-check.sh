#!/usr/bin/env bash
# The CPU measurements the site publishes, in one run on an otherwise idle machine:
#   1. builds kvbench (build/native, Release: one binary, its kernel path chosen at run time),
#   2. for each configuration below, kvbench builds a paged KV cache of Llama-3.1-8B's shape
#      (shuffled pages), runs the CPU kernel on every hardware thread, checks it against the fp64
#      reference (exit 1 on a mismatch), times it and measures the read bandwidth (a stream and
#      an interleaved cross-check, with kernel steps after each round of the two) and the paged
#      read of the same pages,
#   3. replaces the cpu-*.json records in OUT_DIR with one kvscope.measured/1 JSON per
#      configuration, and prints docs/kvbench.md's table (markdown) from them.
# Usage: native-bench/cpu-check.sh OUT_DIR   (web/data/measured publishes them)
set -euo pipefail
out="${1:?usage: native-bench/cpu-check.sh OUT_DIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$(dirname "$0")/.."
out="$(realpath --relative-to=. "$out")"  # the records' commands name it from the checkout
bash scripts/build-native.sh >/dev/null
kvbench=build/native/native-bench/kvbench
# The issue's two bf16 shapes (8 x 32K, 1 x 128K) on the widest path, the layout options (K and V
# in one page; token-major pages; the walk one KV head at a time), AVX2, a short context, fp8 and
# int8 (their own conversions), and 64- and 256-token pages (the layout's share).
configs=(
  "cpu-llama-3.1-8b-bf16-b8-32k             --batch 8 --context 32768"
  "cpu-llama-3.1-8b-bf16-b1-128k            --batch 1 --context 131072"
  "cpu-llama-3.1-8b-bf16-b8-32k-joint       --batch 8 --context 32768 --kv-layout hnd-joint"
  "cpu-llama-3.1-8b-bf16-b1-128k-joint      --batch 1 --context 131072 --kv-layout hnd-joint"
  "cpu-llama-3.1-8b-bf16-b8-32k-nhd         --batch 8 --context 32768 --kv-layout nhd"
  "cpu-llama-3.1-8b-bf16-b8-32k-by-head     --batch 8 --context 32768 --cpu-walk head"
  "cpu-llama-3.1-8b-bf16-b8-32k-avx2        --batch 8 --context 32768 --cpu-kernel avx2"
  "cpu-llama-3.1-8b-bf16-b4-4k              --batch 4 --context 4096"
  "cpu-llama-3.1-8b-fp8-b8-32k              --batch 8 --context 32768 --kv-dtype fp8"
  "cpu-llama-3.1-8b-int8-b8-32k             --batch 8 --context 32768 --kv-dtype int8"
  "cpu-llama-3.1-8b-bf16-b8-32k-p64         --batch 8 --context 32768 --page-size 64"
  "cpu-llama-3.1-8b-bf16-b8-32k-p256        --batch 8 --context 32768 --page-size 256"
)
rm -f "$out"/cpu-*.json
for c in "${configs[@]}"; do
  read -r name args <<<"$c"
  # shellcheck disable=SC2086
  "$kvbench" attention --model llama-3.1-8b $args --out "$out/$name.json" >/dev/null
done
python3 - "$out" "${configs[@]}" <<'PY'
import json, sys
out, names = sys.argv[1], [c.split()[0] for c in sys.argv[2:]]
print("| KV, batch × context, pages | layout, walk | path | bytes per step | median | achieved | stream (same run: best / median) | efficiency | beside each stream run | paged read | of paged read | measured / estimate |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for name in names:
    r = json.load(open(f"{out}/{name}.json"))
    p, bw, paged, paired = r["problem"], r["measured_bandwidth"], r["paged_read"], r["paired_efficiency"]
    assert r["correctness"]["pass"], name
    print(f"| {p['kv_dtype']}, {p['batch']} × {int(p['lengths']):,} tokens, {p['page_size']}-token pages "
          f"| {p['kv_layout']}, by {r['cpu_kernel']['walk']} | {r['cpu_kernel']['path']} | {r['bytes_moved'] / 1e9:.3f} GB | {r['timing']['median_s'] * 1e3:.1f} ms "
          f"| {r['achieved_bytes_per_s'] / 1e9:.2f} GB/s "
          f"| {bw['spread']['best'] / 1e9:.1f} / {bw['spread']['median'] / 1e9:.1f} GB/s "
          f"(cross-check {bw['cross_check']['bytes_per_s'] / 1e9:.1f}; paired ratio {bw['cross_check']['stream_over_check_paired']:.2f}) "
          f"| {100 * r['bandwidth_efficiency']:.1f}% "
          f"| {100 * paired['median']:.1f}% ({100 * paired['worst']:.0f}-{100 * paired['best']:.0f}%) "
          f"| {paged['bytes_per_s'] / 1e9:.1f} GB/s "
          f"({100 * paged['bytes_per_s'] / r['measured_bandwidth_bytes_per_s']:.0f}% of the stream) "
          f"| {100 * paged['efficiency']:.1f}% | {r['measured_over_estimate']:.2f}× |")
r = json.load(open(f"{out}/{names[0]}.json"))
dev, cpuid = r['device'], r['device'].get('cpuid', {})
identity = " ".join(f"{k} {cpuid[k]}" for k in ("family", "model", "stepping") if k in cpuid)
def size(key):
    b = dev.get(key)
    return "unknown" if not b else f"{b / 2**20:g} MiB" if b >= 2**20 else f"{b / 2**10:g} KiB"
print(f"\nMachine: {dev['model']} ({cpuid.get('vendor', 'vendor unknown')} {identity or 'cpuid unknown'}; "
      f"L1d {size('l1d_bytes')}, L2 {size('l2_bytes')}, last level {size('llc_bytes')}), "
      f"{dev['threads']} threads, {dev['isa']}; "
      f"stream buffer {r['measured_bandwidth']['buffer_bytes'] / 1e9:.2f} GB on {r['measured_bandwidth']['pages']}. "
      f"Date: {r['meta']['date']}. Commit: {r['meta']['commit']}.")
PY
echo "cpu-check: records in $out"
