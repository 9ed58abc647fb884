// The npm package as a user installs it: scripts/pack-npm.sh's tarball installed into an empty
// folder (installed.mjs), then `npx kvscope` against the native CLI
// (same stdout, stderr and exit status for the same arguments), the JS API from `import 'kvscope'`
// without passing any .wasm bytes, and the package's types.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, cliPath } from '../paths.mjs';
import { installPackage } from './installed.mjs';

const folder = installPackage();
const npxBin = path.join(folder, 'node_modules/.bin/kvscope');
const logs = path.join(repoRoot, 'tests/data/logs');
const configs = path.join(repoRoot, 'tests/data/configs');

const run = (program, args, input) => {
  const r = spawnSync(program, args, { cwd: repoRoot, input, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

const ARGUMENT_LINES = [
  ['plan', '--model', 'llama-3.1-8b', '--gpu-memory', '24GB', '--max-model-len', '131072', '--json'],
  ['plan', '--model', 'llama-3.1-8b', '--gpu-memory', '24GB', '--max-model-len', '131072'],
  ['plan', '--model', 'qwen3-32b', '--gpu', 'rtx-4090', '--engine', 'ollama', '--weight-dtype', 'q4_k_m'],
  ['estimate', '--config', path.join(configs, readdirSync(configs).find((f) => f.endsWith('.json'))), '--context', '32k'],
  ['sweep', '--model', 'deepseek-v2-lite', '--gpu', 'h100-sxm-80gb', '--json'],
  ['solve', '--model', 'llama-3.1-70b', '--concurrency', '16', '--context', '32768'],
  ['explain', path.join(logs, 'sglang-qwen3-235b-a22b-fp8-tp4-h100.log'), '--model', 'qwen3-235b-a22b', '--weight-dtype', 'fp8'],
  ['check', '--', 'vllm', 'serve', 'Qwen/Qwen3-32B', '--max-model-len', '131072'],
  ['check', '--gpu', 'rtx-4090', '--json', '--', 'OLLAMA_NUM_PARALLEL=2 ollama run qwen3:8b'],
  ['models'], ['gpus', '--json'], ['--version'], ['--help'], ['plan', '--request-schema'],
  ['plan', '--model', 'no-such-model', '--gpu', 'h100-sxm-80gb'],
  ['plan', '--model', 'llama-3.1-8b', '--batch', '-1', '--json'],
  ['frobnicate'],
];

test('npx kvscope prints what the native CLI prints, with its exit status', () => {
  for (const args of ARGUMENT_LINES) {
    assert.deepEqual(run(npxBin, args), run(cliPath, args), args.join(' '));
  }
});

test('npx kvscope reads a log from standard input and keeps the exit codes scripts gate on', () => {
  const log = readFileSync(path.join(logs, 'sglang-qwen3-235b-a22b-fp8-tp4-h100.log'), 'utf8');
  const args = ['explain', '-', '--model', 'qwen3-235b-a22b', '--json'];
  assert.deepEqual(run(npxBin, args, log), run(cliPath, args, log));
  assert.equal(run(npxBin, ['check', '--', 'vllm', 'serve', 'Qwen/Qwen3-32B', '--max-model-len', '131072']).status, 1);
  assert.equal(run(npxBin, ['plan', '--model', 'llama-3.1-8b', '--gpu', 'h100-sxm-80gb']).status, 0);
  assert.equal(run(npxBin, ['plan', '--model', 'x']).status, 2);
});

test("import 'kvscope' loads both modules under node without the caller reading any .wasm", () => {
  const script = `
    import { loadKvscope, KvscopeError } from 'kvscope';
    const kv = await loadKvscope();
    const plan = kv.plan({ model: 'llama-3.1-8b', gpu_memory_bytes: 24e9, max_model_len: 131072 });
    const full = await loadKvscope({ full: true });
    const check = full.check({ launch: 'vllm serve Qwen/Qwen3-32B --max-model-len 131072', gpu: 'h100-sxm-80gb' });
    let error;
    try { kv.plan({ model: 'llama-3.1-8b', batch: -1 }); } catch (e) { error = e; }
    console.log(JSON.stringify({ plan, check: check.starts, fixes: check.fixes.length,
                                 error: error instanceof KvscopeError ? error.field : null }));`;
  writeFileSync(path.join(folder, 'use.mjs'), script);
  const out = JSON.parse(execFileSync('node', ['use.mjs'], { cwd: folder, encoding: 'utf8' }));
  const native = JSON.parse(run(cliPath, ARGUMENT_LINES[0]).stdout);
  assert.deepEqual(out.plan, native);
  assert.equal(out.check, false);
  assert.ok(out.fixes > 0);
  assert.equal(out.error, 'batch');
});

test("the package's types check a TypeScript user of it", () => {
  writeFileSync(path.join(folder, 'use.mts'), `
    import { loadKvscope, type PlanReport, type CheckReport } from 'kvscope';
    const kv = await loadKvscope({ full: true });
    const plan: PlanReport = kv.plan({ model: 'llama-3.1-8b', gpu: 'rtx-4090' });
    const check: CheckReport = kv.check({ launch: 'vllm serve Qwen/Qwen3-8B' });
    const starts: boolean = plan.starts && check.starts;
    export { starts };`);
  writeFileSync(path.join(folder, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { noEmit: true, strict: true, module: 'nodenext', moduleResolution: 'nodenext',
                       target: 'es2022', lib: ['es2022', 'dom'], types: [] },
    files: ['use.mts'] }));
  const r = spawnSync(path.join(repoRoot, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: folder, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
