// The JS API over the WebAssembly module: the same JSON as the native CLI for the same command,
// errors as KvscopeError values with the field, and a module that keeps answering after errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, siteDir, cliPath, configsDir } from '../paths.mjs';
import { cliAnswer, cliReport } from '../support/cli-request.mjs';
import { FIRST_MODULE_ENGINES, needsFullModule } from '../support/modules.mjs';

const client = await import(path.join(siteDir, 'js/kvscope-client.js'));
const { loadKvscope, KvscopeError } = client;
const kv = await loadKvscope({ wasmBinary: readFileSync(path.join(siteDir, 'js/wasm/kvscope_module.wasm')) });
// The module that reads configs and plans every engine (the first one reads none and plans vLLM
// and the plain arithmetic): what the page switches to for them.
const full = await loadKvscope({ full: true, wasmBinary: readFileSync(path.join(siteDir, 'js/wasm/kvscope_full_module.wasm')) });
const moduleFor = (request) => (needsFullModule(request) ? full : kv);
const cli = cliReport;

const SCENARIOS = [
  { model: 'llama-3.1-8b', gpu_memory_bytes: 24e9, engine: 'vllm', max_model_len: 131072, context_tokens: 131072 },
  { model: 'llama-2-7b', gpu_memory_bytes: 80e9, engine: 'plain', kv_dtype: 'fp16', weights_bytes: 13.5e9, context_tokens: 4096, max_model_len: 4096 },
  { model: 'deepseek-v2-lite', gpu: 'h100-sxm-80gb', engine: 'vllm', kv_dtype: 'fp8', context_tokens: 32768, batch: 16 },
  { model: 'gemma-3-27b', gpu: 'h100-sxm-80gb', engine: 'sglang', tensor_parallel: 2, gpus: 4, context_tokens: 65536 },
  { model: 'qwen3-next-80b-a3b', gpu: 'h200-sxm-141gb', engine: 'vllm', tensor_parallel: 2, context_tokens: 262144 },
  { model: 'mistral-7b-v0.1', gpu: 'rtx-4090', engine: 'llama.cpp', kv_dtype: 'q8_0', weight_dtype: 'q4_k_m', llama_cpp: { parallel: 4 }, context_tokens: 8192 },
  { model: 'llama-3.1-70b', gpu: 'a100-sxm-80gb', engine: 'tensorrt-llm', tensor_parallel: 4, pipeline_parallel: 2, context_tokens: 32768, prompt_lengths: 'uniform:512-8192', output_lengths: 'lognormal:mean=500,p99=4000' },
  { model: 'llama-3.1-8b', gpu_memory_bytes: 24e9, gpu_bandwidth_bytes_per_s: 1e12, gpu_dense_tflops: 165, context_tokens: 8192, set: { num_key_value_heads: 4 } },
  { model: 'qwen3-32b', gpu: 'rtx-4090', engine: 'ollama', weight_dtype: 'q4_k_m', ollama: { num_ctx: 40960, num_parallel: 2, kv_cache_type: 'q8_0' } },
];

test('plan: the module and the CLI print the same JSON', () => {
  for (const s of SCENARIOS) assert.deepEqual(moduleFor(s).plan(s), cli('plan', s), JSON.stringify(s));
});

test('the command line the module writes for a request gives the same report', () => {
  for (const s of SCENARIOS) {
    const args = kv.commandLine('plan', s);
    assert.equal(args[0], 'plan');
    const run = spawnSync(cliPath, [...args, '--json'], { encoding: 'utf8' });
    assert.equal(run.status, 0, `${args.join(' ')}: ${run.stderr}`);
    assert.deepEqual(JSON.parse(run.stdout), moduleFor(s).plan(s), args.join(' '));
  }
  assert.deepEqual(kv.commandLine('plan', SCENARIOS[5]), ['plan', '--model', 'mistral-7b-v0.1', '--kv-dtype', 'q8_0',
    '--weight-dtype', 'q4_k_m', '--context', '8192', '--engine', 'llama.cpp', '--gpu', 'rtx-4090', '--parallel', '4']);
  assert.deepEqual(kv.commandLine('plan', SCENARIOS[0]).slice(-4), ['--gpu-memory', '24GB', '--max-model-len', '131072']);
});

test('sweep and estimate: the same JSON as the CLI', () => {
  for (const s of SCENARIOS.slice(0, 4)) {
    const r = { ...s, sweep: { points: 16 } };
    assert.deepEqual(moduleFor(r).sweep(r), cli('sweep', r));
  }
  const why = { model: 'llama-3.1-8b', prompt_tokens: 5, output_tokens: 64 };
  assert.deepEqual(kv.estimate(why), cli('estimate', why));
});

test('catalogues: the same lists as the CLI (the first module\'s GPUs without their citations)', () => {
  assert.deepEqual(kv.models(), cli('models', {}));
  const gpus = cli('gpus', {});
  assert.deepEqual(full.gpus(), gpus);
  const uncited = (g) => ({ ...g, memory_bytes_source: '', source: '', price_source: g.price_source === null ? null : '' });
  assert.deepEqual(kv.gpus(), { ...gpus, gpus: gpus.gpus.map(uncited) });
  assert.ok(gpus.gpus.every((g) => g.memory_bytes_source !== '' && g.source !== ''), 'every GPU cited');
  assert.deepEqual(kv.dtypes(), cli('dtypes', {}));
  assert.deepEqual(kv.engines(), cli('engines', {}));
  const listed = (args) => JSON.parse(execFileSync(cliPath, [...args, '--json'], { encoding: 'utf8' }));
  assert.deepEqual(full.gpus(), listed(['gpus']));
});

test('config.json import: every fixture gives the CLI --config answer', () => {
  for (const file of readdirSync(configsDir)) {
    const fullPath = path.join(configsDir, file);
    const text = readFileSync(fullPath, 'utf8');
    const run = spawnSync(cliPath, ['estimate', '--config', fullPath, '--json'], { encoding: 'utf8' });
    const expected = JSON.parse(run.stdout);
    if (run.status === 0) assert.deepEqual(full.importConfig(text, fullPath), expected, file);
    else assert.throws(() => full.importConfig(text, fullPath), (e) => e.code === expected.error.code && e.field === expected.error.field, file);
  }
});

test('the first module reads no config and plans vLLM and plain arithmetic: the rest is the full module\'s', () => {
  const preset = { model: 'llama-3.1-8b', gpu_memory_bytes: 24e9 };
  const config = readFileSync(path.join(configsDir, readdirSync(configsDir)[0]), 'utf8');
  for (const [key, value] of [['config', { name: 'config.json', text: config }], ['set', { num_key_value_heads: 4 }],
    ['weights_index', { name: 'model.safetensors.index.json', text: '{"metadata": {"total_size": 16000000000}}' }],
    ['speculative_config', { method: 'mtp', num_speculative_tokens: 1 }]]) {
    const request = key === 'config' ? { ...preset, model: null, config: value } : { ...preset, [key]: value };
    assert.throws(() => kv.plan(request), (e) => e instanceof KvscopeError && e.code === 'needs_full_module' &&
      e.field === key && /full module/.test(e.message), key);
  }
  for (const { id } of kv.engines().engines.filter((e) => !FIRST_MODULE_ENGINES.includes(e.id))) {
    assert.throws(() => kv.plan({ ...preset, engine: id }), (e) => e instanceof KvscopeError &&
      e.code === 'needs_full_module' && e.field === 'engine' && e.message === `engine: planning ${id} needs kvscope's full module (this one plans vLLM and the plain arithmetic)`, id);
    assert.equal(full.plan({ ...preset, engine: id }).input.engine, id);
  }
  assert.equal(kv.engines().engines.length, full.engines().engines.length, 'every engine listed in both');
});

test('every preset: the first module (its build\'s imports) and the full one (the configs) plan alike', () => {
  const engines = FIRST_MODULE_ENGINES;
  let plans = 0;
  for (const { id } of kv.models().models) {
    assert.deepEqual(kv.estimate({ model: id, context_tokens: 300000, batch: 3 }), full.estimate({ model: id, context_tokens: 300000, batch: 3 }), id);
    for (const engine of engines) {
      const request = { model: id, gpu: 'h200-sxm-141gb', engine, tensor_parallel: 8, context_tokens: 32768 };
      if (needsFullModule({ ...request, command: 'plan' })) {
        assert.throws(() => kv.plan(request), (e) => e.code === 'needs_full_module' && e.field === 'model' &&
          e.message === 'model: DeepSeek-V4\'s caches under vLLM need kvscope\'s full module (this one plans the others)', id);
        assert.equal(full.plan(request).model.id, id);
        continue;
      }
      let expected;
      try { expected = full.plan(request); } catch (e) {
        assert.throws(() => kv.plan(request), (f) => f.code === e.code && f.message === e.message, `${id} ${engine}`);
        continue;
      }
      assert.deepEqual(kv.plan(request), expected, `${id} ${engine}`);
      plans += 1;
    }
  }
  assert.ok(plans > 100, `${plans} plans compared`);
});

test('seed numbers through the API: bytes per token from the model shape', () => {
  assert.equal(kv.estimate({ model: 'llama-2-7b', kv_dtype: 'fp16' }).kv_bytes_per_token, 524288);
  const gqa = kv.estimate({ model: 'llama-3.1-8b', context_tokens: 131072 });
  assert.equal(gqa.kv_bytes_per_token, 131072);
  assert.equal(gqa.kv_bytes_per_sequence, 16 * 2 ** 30);
  assert.equal(kv.estimate({ model: 'llama-3.1-8b', kv_dtype: 'fp8' }).kv_bytes_per_token, 65536);
  const why = kv.estimate({ model: 'llama-3.1-8b', prompt_tokens: 5, output_tokens: 64 });
  assert.equal(why.kv_projections_without_cache, 2336);
  assert.equal(why.kv_projections_with_cache, 68);
  const refused = kv.plan(SCENARIOS[0]);
  assert.equal(refused.starts, false);
  assert.ok(refused.max_model_len_that_fits > 0 && refused.max_model_len_that_fits < 131072);
});

const BAD = [
  [{ model: 'llama-3.1-8b', context_tokens: -5 }, 'invalid_value', 'context_tokens'],
  [{ model: 'llama-3.1-8b', context_tokens: '4096' }, 'invalid_value', 'context_tokens'],
  [{ model: 'llama-3.1-8b', context_tokens: 10 ** 15 }, 'out_of_range', null],
  [{ model: 'llama-3.1-8b', batch: -1 }, 'invalid_value', 'batch'],
  [{ model: 'llama-3.1-8b', batch: 1.5 }, 'invalid_value', 'batch'],
  [{ model: 'llama-3.1-8b', kv_dtype: 'fp7' }, 'invalid_value', 'kv_dtype'],
  [{ model: 'llama-3.1-8b', context: 4096 }, 'invalid_value', 'context'],
  [{ model: 'llama-3.1-8b', engine: 'vllm' }, 'invalid_value', 'engine'],
  [{ model: 'llama-3.1-8b', config: { text: '{}' } }, 'invalid_value', 'model'],
  [{ model: '<script>alert(1)</script>' }, 'unknown_id', 'model'],
  [{ config: { name: 'broken.json', text: '{"num_hidden_layers": 32,' } }, 'invalid_json', 'config'],
  [{ config: { name: 'zero.json', text: '{"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 0}' } }, null, 'num_attention_heads'],
  [{ config: { name: 'huge.json', text: '{"num_hidden_layers": 1000000000000, "hidden_size": 4096, "num_attention_heads": 32}' } }, null, 'num_hidden_layers'],
];

test('bad input: a KvscopeError naming the field, then the next request still answers', () => {
  const good = kv.estimate({ model: 'llama-3.1-8b' });
  for (const [options, code, field] of BAD) {
    assert.throws(() => moduleFor(options).estimate(options), (e) => {
      assert.ok(e instanceof KvscopeError, String(e));
      if (code) assert.equal(e.code, code, e.message);
      if (field) assert.ok(e.field === field || e.field.endsWith(field), `${e.field} for ${JSON.stringify(options)}`);
      assert.ok(!e.message.includes('\n'), 'one line');
      assert.ok(e.message.length < 400);
      return true;
    }, JSON.stringify(options));
    assert.deepEqual(kv.estimate({ model: 'llama-3.1-8b' }), good, 'module still answers after an error');
  }
});

test('each module is loaded once and shared', async () => {
  assert.equal(await loadKvscope(), kv);
  assert.equal(await loadKvscope({ full: true }), full);
  assert.equal(client.instantiations(), 2);
});

test('the first module answers the sizing commands only; the full one, loaded apart, every command alike', async () => {
  assert.equal(typeof kv.module.solve, 'undefined', 'no solver in the first module');
  assert.equal(typeof kv.module.explain, 'undefined', 'no log reader in the first module');
  assert.equal('solve' in kv, false);
  assert.ok(full instanceof client.KvscopeFull);
  assert.equal(await loadKvscope({ full: true }), full, 'loaded once and shared');
  assert.equal(await loadKvscope(), kv, 'beside the first module, not in its place');
  assert.equal(client.instantiations(), 2);
  for (const s of SCENARIOS.filter((x) => !needsFullModule(x))) assert.deepEqual(full.plan(s), kv.plan(s), JSON.stringify(s));
  assert.deepEqual(full.models(), kv.models());
  assert.deepEqual(full.commandLine('plan', SCENARIOS[0]), kv.commandLine('plan', SCENARIOS[0]));
  const solve = { model: 'qwen3-8b', concurrency: 8, context_tokens: 8192, gpu: ['l4', 'h100-sxm-80gb'] };
  assert.deepEqual(full.solve(solve), cli('solve', solve));
  const log = path.join(repoRoot, 'tests/data/logs/vllm-v0-llama31-8b-rtx3090-20k.log');
  const explain = { log: { name: path.basename(log), text: readFileSync(log, 'utf8') }, model: 'llama-3.1-8b', max_model_len: 20000 };
  assert.deepEqual(full.explain(explain), cli('explain', explain));
  assert.throws(() => full.solve({ ...solve, concurrency: 0 }), (e) => e instanceof KvscopeError && e.field === 'concurrency');
});

test('a plan request names the key of a bad value, nested keys included', () => {
  const bad = [
    [{ vllm: { gpu_memory_utilization: 1.5 } }, 'vllm.gpu_memory_utilization'],
    [{ vllm: { gpu_memory_utilizaton: 0.9 } }, 'vllm.gpu_memory_utilizaton'],
    [{ tensor_parallel: 3 }, 'tensor_parallel'],
    [{ gpu: 'nope' }, 'gpu'],
    [{ sweep: { points: 8 } }, 'sweep.points'],
    [{ llama_cpp: { tensor_split: [1, -1] } }, 'llama_cpp.tensor_split'],
  ];
  for (const [change, field] of bad) {
    const request = { model: 'llama-3.1-8b', gpu_memory_bytes: 24e9, ...change };
    assert.throws(() => kv.plan(request), (e) => e.field === field, JSON.stringify(change));
    const a = cliAnswer('plan', request);
    assert.equal(a.status, 2);
    assert.equal(a.json.error.field, field, 'the CLI reading a request file names the same key');
  }
});

// A seeded PRNG (mulberry32), so a failing option set is the same on every run.
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Requests over the catalogues the module itself lists; about one in five is refused (an unknown
// id, TP that does not divide, no GPU, a bad number).
function randomRequest(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const chance = (p) => random() < p;
  const tokens = (max) => Math.max(1, Math.round(Math.exp(random() * Math.log(max))));
  const models = kv.models().models.map((m) => m.id);
  const dtypes = kv.dtypes();
  const command = pick(['plan', 'plan', 'plan', 'sweep', 'estimate', 'estimate']);
  const o = { model: chance(0.03) ? 'no-such-model' : pick(models) };
  if (chance(0.6)) o.kv_dtype = pick([...dtypes.kv.map((d) => d.name), 'auto', 'fp7']);
  o.context_tokens = chance(0.03) ? pick([0, -5, 10 ** 15]) : tokens(1 << 20);
  if (chance(0.4)) o.batch = tokens(1024);
  if (chance(0.2)) o.block_size_tokens = pick([1, 16, 32, 256]);
  if (chance(0.2)) o.shared_prefix_tokens = Math.floor(random() * Math.max(1, o.context_tokens));
  if (command === 'estimate') return { command, request: o };
  o.engine = pick(['plain', 'vllm', 'sglang', 'tensorrt-llm', 'llama.cpp', 'llama.cpp', 'bogus']);
  const memory = random();
  if (memory < 0.6) o.gpu = pick(kv.gpus().gpus.map((g) => g.id));
  else if (memory < 0.9) o.gpu_memory_bytes = pick([16e9, 24e9, 48e9, 80e9, 192e9]);
  else if (memory < 0.97) o.kv_memory_bytes = pick([8 * 2 ** 30, 40e9]);
  if (chance(0.3)) o.weight_dtype = pick(dtypes.weight.map((d) => d.name));
  if (chance(0.4)) o.tensor_parallel = pick([1, 2, 4, 8, 3]);
  if (chance(0.2)) o.pipeline_parallel = pick([1, 2, 3]);
  if (chance(0.1)) o.gpus = pick([8, 16, 12]);
  if (chance(0.5)) o.max_model_len = tokens(1 << 20);
  if (chance(0.2)) o.vllm = { gpu_memory_utilization: pick([0.5, 0.8, 0.95, 1, 1.2]) };
  if (o.engine === 'llama.cpp' && chance(0.5)) o.llama_cpp = { parallel: pick([1, 4, 16]) };
  if (chance(0.1)) o.gpu_bandwidth_bytes_per_s = pick([1e12, 3.35e12]);
  if (chance(0.1)) {
    o.prompt_lengths = pick(['4096', 'uniform:512-8192', 'lognormal:mean=2000,p99=16000']);
    o.output_lengths = pick(['256', 'uniform:10-900']);
  }
  if (command === 'sweep') o.sweep = { points: 2 + Math.floor(random() * 24) };
  return { command, request: o };
}

test('random plan, sweep and estimate requests: the module, the CLI and its flags agree', (t) => {
  const random = mulberry32(20261202);
  let refused = 0;
  for (let i = 0; i < 200; ++i) {
    const { command, request } = randomRequest(random);
    const label = `${i}: ${command} ${JSON.stringify(request)}`;
    const expected = cliAnswer(command, request);
    let flags = null;  // the same request written as flags, when the module accepts it
    try { flags = kv.commandLine(command, request); } catch (e) { assert.ok(e instanceof KvscopeError, label); }
    const byFlags = flags && spawnSync(cliPath, [...flags, '--json'], { encoding: 'utf8' });
    const module = moduleFor(request);
    if (expected.status === 0) {
      assert.deepEqual(module[command](request), expected.json, label);
      assert.equal(byFlags.status, 0, `${flags.join(' ')}: ${byFlags.stderr}`);
      assert.deepEqual(JSON.parse(byFlags.stdout), expected.json, flags.join(' '));
      continue;
    }
    ++refused;
    assert.equal(expected.status, 2, label);
    assert.throws(() => module[command](request), (e) => {
      assert.ok(e instanceof KvscopeError, String(e));
      assert.equal(e.code, expected.json.error.code, label);
      assert.equal(e.field, expected.json.error.field, label);
      return true;
    }, label);
    if (byFlags) assert.equal(byFlags.status, 2, `${flags.join(' ')} is refused too`);
  }
  // Both branches are exercised.
  assert.ok(refused > 10 && refused < 150, `${refused} of 200 refused`);
  t.diagnostic(`${200 - refused} answered alike, ${refused} refused alike`);
});
