// Today's deployments on the page: checkpoints sized as they are stored, the engine's context
// limit on the context control, speculative decoding with MTP layers, and a weights index file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { siteDir } from '../paths.mjs';
import { serve, launch, open, screenshot, cliPlan, showSweeps, value } from './support.mjs';

const { DEFAULTS, toHash, planRequest } = await import(path.join(siteDir, 'js/state.js'));

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const DEEPSEEK = { ...DEFAULTS, model: 'deepseek-v3', gpu: 'h200-sxm-141gb', gpus: 8, tensor_parallel: 8, kv_dtype: 'fp8', context_tokens: 131072 };

test('DeepSeek-V3 on one 8 x H200 node starts: its fp8 weights, and MTP drafting', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(DEEPSEEK)}`);
  const expected = cliPlan(DEEPSEEK);
  assert.equal(expected.starts, true);
  assert.equal(await page.getAttribute('.verdict', 'data-starts'), 'true');
  assert.equal(await value(page, '#weights-per-gpu'), expected.weights_bytes);
  assert.match(await page.textContent('#weights-source'), /fp8 with 128x128 block scales/);
  assert.match(await page.textContent('#context-limit'), /163,840 tokens \(max_position_embeddings=163840\)/);
  assert.equal(await page.isVisible('#mtp-control'), true);  // the checkpoint has an MTP layer
  await screenshot(page, 'page-deepseek-v3-8xh200');
  await page.selectOption('#mtp-tokens', '1');
  await page.waitForURL(/speculative_config.num_speculative_tokens=1/);
  const drafting = cliPlan({ ...DEEPSEEK, 'speculative_config.num_speculative_tokens': 1 });
  assert.equal(await value(page, '#kv-bytes-per-token'), drafting.kv_bytes_per_token);
  assert.equal(drafting.kv_bytes_per_token, expected.kv_bytes_per_token / 61 * 62);
  assert.deepEqual(problems, []);
  await page.close();
});

test('Qwen3-32B at 131072 tokens: vLLM refuses past the derived limit, the override starts it', async () => {
  const qwen = { ...DEFAULTS, model: 'qwen3-32b', gpu: 'h200-sxm-141gb', context_tokens: 131072 };
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(qwen)}`);
  assert.equal(await page.getAttribute('.verdict', 'data-starts'), 'false');
  assert.match(await page.textContent('#startup-error'),
    /^User-specified max_model_len \(131072\) is greater than the derived max_model_len \(max_position_embeddings=40960 or model_max_length=None/);
  assert.match(await page.textContent('#context-limit'), /40,960 tokens .* 131,072 is past it/);
  assert.equal(await page.isVisible('#mtp-control'), false);
  await page.check('#allow-long-context');
  await page.waitForURL(/allow_long_context=true/);
  assert.equal(await page.getAttribute('.verdict', 'data-starts'), 'true');
  assert.match(await page.inputValue('#engine-command'), /^VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve Qwen\/Qwen3-32B /);
  assert.deepEqual(problems, []);
  await page.close();
});

test('DeepSeek-V3 on 8 x H200 at DP 8: experts spread over every GPU, each rank holds its own requests', async () => {
  const dp8 = { ...DEEPSEEK, kv_dtype: 'auto', tensor_parallel: 1 };
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(dp8)}`);
  const expected = cliPlan(dp8);
  assert.equal(expected.parallelism.experts_over_gpus, 8);
  assert.equal(await page.getAttribute('.verdict', 'data-starts'), 'true');
  assert.equal(await value(page, '#weights-per-gpu'), expected.weights_bytes);
  assert.match(await page.textContent('#capacity-panel'), /per data-parallel rank; [\d.]+ over 8 GPUs, the experts spread over all 8 of them/);
  assert.match(await page.inputValue('#engine-command'), / --data-parallel-size 8$/);
  assert.ok(expected.totals.sequences_that_fit > 4 * cliPlan({ ...dp8, tensor_parallel: 8 }).totals.sequences_that_fit);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a base config launches its chat checkpoint; the base one is a choice', async () => {
  const gemma = { ...DEFAULTS, model: 'gemma-3-27b', gpu: 'h100-sxm-80gb', context_tokens: 32768 };
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(gemma)}`);
  assert.match(await page.textContent('#model-source'), /gemma-3-27b-pt\/blob\/main\/config\.json\. Launch commands serve its chat checkpoint, google\/gemma-3-27b-it\./);
  assert.match(await page.inputValue('#engine-command'), /^vllm serve google\/gemma-3-27b-it /);
  assert.equal(await page.textContent('#base-id'), 'google/gemma-3-27b-pt');
  await screenshot(page, 'page-chat-checkpoint');
  await page.check('#serve-base');
  await page.waitForURL(/serve_base=true/);
  assert.match(await page.inputValue('#engine-command'), /^vllm serve google\/gemma-3-27b-pt /);
  assert.equal(cliPlan({ ...gemma, serve_base: true }).launch_command, await page.inputValue('#engine-command'));
  await page.fill('#model', 'gpt-oss-120b');  // served as it is: no choice to make
  await page.dispatchEvent('#model', 'change');
  await page.waitForURL(/model=gpt-oss-120b/);
  assert.equal(await page.isVisible('#serve-base-field'), false);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a model.safetensors.index.json fixes the weights to its total_size', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(DEEPSEEK)}`);
  await page.click('#config-details summary');
  const index = { metadata: { total_size: 688586727753 }, weight_map: { 'lm_head.weight': 'model-00163-of-000163.safetensors' } };
  await page.setInputFiles('#index-file', { name: 'model.safetensors.index.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(index)) });
  await page.waitForURL(/checkpoint_bytes=688586727753/);
  assert.match(await page.textContent('#weights-source'), /metadata\.total_size 688,586,727,753 bytes, exactly/);
  const expected = cliPlan({ ...DEEPSEEK, checkpoint_bytes: 688586727753 });
  assert.equal(await value(page, '#weights-per-gpu'), expected.weights_bytes);
  // A file without total_size is named in an error; the weights stay as they were.
  await page.setInputFiles('#index-file', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"weight_map": {}}') });
  await page.waitForSelector('#input-error:not([hidden])');
  assert.match(await page.textContent('#input-error'), /metadata\.total_size is missing/);
  assert.match(await page.textContent('#weights-source'), /688,586,727,753/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a model named by its Hugging Face id or display name', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  await page.fill('#model', 'openai/gpt-oss-120b');
  await page.dispatchEvent('#model', 'change');
  await page.waitForURL(/model=gpt-oss-120b/);
  assert.match(await page.textContent('#weights-source'), /MXFP4: routed experts in fp4/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('Qwen3-Next under SGLang: the recurrent-state pool, the request cap, and its ratio knob', async () => {
  const next = { ...DEFAULTS, model: 'qwen3-next-80b-a3b', gpu: 'h100-sxm-80gb', gpus: 4, tensor_parallel: 4, engine: 'sglang', context_tokens: 32768 };
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(next)}`);
  const expected = cliPlan(next);
  assert.equal(await page.getAttribute('.verdict', 'data-starts'), 'true');
  assert.equal(await value(page, '#state-pool'), expected.state_pool.bytes);
  assert.equal(Number(await page.getAttribute('#state-pool', 'data-slots')), expected.state_pool.slots);
  assert.match(await page.textContent('#state-pool'), /SSM in fp32/);
  assert.equal(await value(page, '#max-running-requests'), expected.max_running_requests);
  assert.equal(await value(page, '#kv-pool'), expected.kv_pool_bytes);
  assert.equal(await page.isVisible('#mamba-full-memory-ratio'), true);
  // mem_fraction_static left to SGLang: the one it takes for an H100 at TP 4 shown in its box
  // (512 + 12,288 + 512 NCCL + 1,024 for 512 decode graph sizes + 464 prefill = 14,800 of 81,559 MiB).
  assert.equal(await page.inputValue('#mem-fraction-static'), '');
  assert.equal(await page.getAttribute('#mem-fraction-static', 'placeholder'),
    String(+(expected.budget.requested_bytes / expected.gpu.memory_bytes).toFixed(4)));
  assert.equal(await page.getAttribute('#mem-fraction-static', 'placeholder'), '0.819');
  await showSweeps(page, '#chart-memory');
  await page.waitForFunction(() => document.querySelector('#chart-memory')?.getAttribute('aria-label').includes('state pool'));
  await screenshot(page, 'page-qwen3-next-sglang');
  await page.fill('#mamba-full-memory-ratio', '0.3');
  await page.dispatchEvent('#mamba-full-memory-ratio', 'change');
  await page.waitForURL(/sglang.mamba_full_memory_ratio=0.3/);
  const fewer = cliPlan({ ...next, 'sglang.mamba_full_memory_ratio': 0.3 });
  assert.ok(fewer.state_pool.slots < expected.state_pool.slots);
  assert.equal(Number(await page.getAttribute('#state-pool', 'data-slots')), fewer.state_pool.slots);
  assert.match(await page.inputValue('#engine-command'), /--mamba-full-memory-ratio 0\.3/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('Qwen3-32B under Ollama on an RTX 4090: its default num_ctx shown, and the layers it spills to the CPU', async () => {
  const ollama = { ...DEFAULTS, model: 'qwen3-32b', gpu: 'rtx-4090', engine: 'ollama', weight_dtype: 'q4_k_m', context_tokens: 40960 };
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(ollama)}`);
  const expected = cliPlan(ollama);
  // num_ctx left to Ollama: its default for 24 GiB of VRAM, shorter than the 40,960-token target.
  assert.equal(await page.inputValue('#num-ctx'), '');
  assert.equal(await page.getAttribute('#num-ctx', 'placeholder'), String(expected.ollama.num_ctx));
  assert.equal(expected.ollama.num_ctx, 32768);
  assert.equal(await page.getAttribute('.verdict', 'data-target-met'), 'false');
  assert.match(await page.textContent('#verdict-headline'), /OLLAMA_CONTEXT_LENGTH=40960/);
  await page.fill('#num-ctx', '40960');
  await page.dispatchEvent('#num-ctx', 'change');
  await page.waitForURL(/ollama.num_ctx=40960/);
  const spilled = cliPlan({ ...ollama, 'ollama.num_ctx': 40960 });
  assert.ok(spilled.offload.gpu_layers < spilled.offload.layers);
  await page.waitForSelector('#verdict-spill');
  assert.match(await page.textContent('#verdict-spill'),
    new RegExp(`Only ${spilled.offload.gpu_layers} of ${spilled.offload.layers} layers fit on the GPU`));
  assert.match(await page.inputValue('#engine-command'), /OLLAMA_CONTEXT_LENGTH=40960 ollama serve/);
  await screenshot(page, 'page-qwen3-32b-ollama-spill');
  assert.deepEqual(problems, []);
  await page.close();
});

test('A KV dtype the engine has no name for is named under its launch command, not passed on', async () => {
  const int8 = { ...DEFAULTS, gpu: 'h100-sxm-80gb', kv_dtype: 'int8', context_tokens: 8192 };
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(int8)}`);
  assert.equal(cliPlan(int8).launch_unexpressed.length, 1);
  assert.doesNotMatch(await page.inputValue('#engine-command'), /--kv-cache-dtype/);
  assert.match(await page.textContent('#engine-command-unexpressed'), /^vLLM has no KV cache dtype for int8: --kv-cache-dtype can set auto, fp8,/);
  await screenshot(page, 'page-launch-unexpressed');
  await page.selectOption('#kv-dtype', 'fp8');
  await page.waitForURL(/kv_dtype=fp8/);
  assert.match(await page.inputValue('#engine-command'), /--kv-cache-dtype fp8/);
  assert.equal(await page.isVisible('#engine-command-unexpressed'), false);
  assert.deepEqual(problems, []);
  await page.close();
});

test('20 users at 32K on two H200s: the verdict says how many fit before it says vLLM starts', async () => {
  const target = { ...DEFAULTS, model: 'qwen3-32b', gpu: 'h200-sxm-141gb', gpus: 2, batch: 20, context_tokens: 32768 };
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(target)}`);
  const expected = cliPlan(target);
  assert.equal(expected.starts, true);
  assert.equal(expected.target.met, false);
  assert.equal(await page.getAttribute('.verdict', 'data-starts'), 'true');
  assert.equal(await page.getAttribute('.verdict', 'data-target-met'), 'false');
  assert.match(await page.getAttribute('.verdict', 'class'), /\bbad\b/);
  assert.ok(expected.target.sequences_that_fit < 20);
  assert.match(await page.textContent('#verdict-headline'),
    new RegExp(`^Fits ${Math.floor(expected.target.sequences_that_fit)}\\.\\d of 20 sequences at 32,768 tokens: vLLM starts Qwen3 32B`));
  await screenshot(page, 'page-target-not-met');
  await page.fill('#gpus', '4');
  await page.waitForURL(/gpus=4/);
  assert.equal(await page.getAttribute('.verdict', 'data-target-met'), 'true');
  assert.match(await page.textContent('#verdict-headline'), /^vLLM starts: /);
  assert.deepEqual(problems, []);
  await page.close();
});

test('Engine versions: the lines that differ are offered, and the chosen one plans the page', async () => {
  // Qwen3-30B-A3B over two 48 GB cards at 131,072 tokens: each stage needs 6 GiB of its 10.3; the
  // 0.14-0.15 line checks all 48 layers (12 GiB) against a stage and refuses (vLLM issue #34076).
  const s = { ...DEFAULTS, model: 'qwen3-30b-a3b', gpu: 'custom', gpu_memory_bytes: 48e9, gpus: 2, pipeline_parallel: 2, context_tokens: 131072, allow_long_context: true };
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(s)}`);
  assert.equal(cliPlan(s).starts, true);
  assert.equal(await page.getAttribute('.verdict', 'data-starts'), 'true');
  const labels = await page.$$eval('#engine-version option', (o) => o.map((x) => x.textContent));
  assert.deepEqual(labels, ['0.29 and later (current)', '0.28', '0.26-0.27', '0.25', '0.21-0.24', '0.20',
    '0.16-0.19 (0.10-0.13 count alike)', '0.14-0.15', '0.8-0.9 (V1, no hybrid allocator)', 'V0 engine (VLLM_USE_V1=0, 0.8-0.10)',
    '0.7 and earlier (V0 engine)']);  // newest first, preselected
  assert.equal(await page.inputValue('#engine-version'), '');
  assert.match(await page.textContent('#engine-version-note'), /the null block/);
  await page.selectOption('#engine-version', '0.14');
  await page.waitForURL(/engine_version=0\.14/);
  const old = cliPlan({ ...s, engine_version: '0.14' });
  assert.equal(old.starts, false);
  assert.equal(await page.getAttribute('.verdict', 'data-starts'), 'false');
  assert.match(await page.textContent('#engine-version-note'), /every layer of the model/);
  await screenshot(page, 'page-engine-version-014');
  await page.selectOption('#engine', 'tensorrt-llm');  // one line only: no version control
  await page.waitForURL(/engine=tensorrt-llm/);
  assert.equal(await page.isVisible('#engine-version'), false);
  assert.doesNotMatch(page.url(), /engine_version=/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('What kvscope estimates is shown as a range, and a start that turns on it says so', async () => {
  const first = cliPlan(DEFAULTS);  // article 2: Llama-3.1-8B on a 24 GB card at 128K
  const e = first.estimated_budget;
  assert.ok(e.kv_pool_bytes[0] < first.kv_pool_bytes && first.kv_pool_bytes < e.kv_pool_bytes[1]);
  const close = { ...DEFAULTS, context_tokens: e.max_model_len_that_fits[1] };
  assert.deepEqual(cliPlan(close).estimated_budget.starts, [false, true]);
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(close)}`);
  assert.equal(Number(await page.getAttribute('#estimated-budget', 'data-low')), cliPlan(close).estimated_budget.kv_pool_bytes[0]);
  assert.match(await page.textContent('#estimated-budget'), /activation peak .* to .*, non-torch memory .* and CUDA graphs .* to /);
  assert.match(await page.textContent('#verdict-close-call'), /^A close call: vLLM measures its activation peak/);
  await screenshot(page, 'page-estimated-close-call');
  await page.fill('#context', '16384');
  await page.waitForURL(/context_tokens=16384/);
  assert.equal(await page.isVisible('#verdict-close-call'), false);
  assert.deepEqual(problems, []);
  await page.close();
});

// What an explained log measured goes into the request at the keys the engine table lists for it
// (kvscope.engines/1 calibration), and to no other engine.
test('a start-up log\'s measurements go to the engine that reads them', () => {
  const measured = { ...DEFAULTS, 'vllm.activation_bytes': 2e9, 'vllm.non_torch_bytes': null };
  assert.deepEqual(planRequest(measured).vllm, { gpu_memory_utilization: null, activation_bytes: 2e9 });  // null: the line's
  const plan = cliPlan(measured);
  const estimated = cliPlan(DEFAULTS);
  assert.equal(plan.budget.activation_bytes, 2e9);
  assert.equal(estimated.kv_pool_bytes - plan.kv_pool_bytes, 2e9 - estimated.budget.activation_bytes);
  assert.equal(planRequest({ ...measured, engine: 'sglang' }).vllm, undefined);
  assert.equal(planRequest(DEFAULTS).vllm.activation_bytes, undefined);
});
