// Every permalink yields a working page (issue 17): a field the page or the core refuses is named
// beside its control and falls back to its default while the rest answers; errors of an edit sit
// beside the field edited, mark the answers as those of the last valid inputs, and leave with it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { siteDir } from '../paths.mjs';
import { serve, launch, open, cliPlan, value } from './support.mjs';

const { DEFAULTS, OLD_NAMES, parseHash, scenarioHash, toHash } = await import(path.join(siteDir, 'js/state.js'));

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** The note beside a control: its text, and how far below the control it sits (px). */
async function noteOf(page, control) {
  const note = page.locator(`#${control}-error`);
  if (await note.count() === 0) return null;
  const [a, b] = await Promise.all([page.locator(`#${control}`).boundingBox(), note.boundingBox()]);
  const describedBy = await page.getAttribute(`#${control}`, 'aria-describedby');
  return { text: await note.textContent(), below: b && a ? b.y - (a.y + a.height) : null,
    invalid: await page.getAttribute(`#${control}`, 'aria-invalid'), describedBy };
}

const LINKS = [
  { hash: 'gpu=nope&context=32768', control: 'gpu', says: /unknown id "nope"/, state: { context_tokens: 32768 } },
  { hash: 'model=qwen9-99b&kv_dtype=fp8', control: 'model', says: /unknown id "qwen9-99b"/, state: { kv_dtype: 'fp8' } },
  { hash: 'gpu=h100-sxm-80gb&tp=3', control: 'tp', says: /divisible by tensor parallel size \(3\)/, state: { gpu: 'h100-sxm-80gb' } },
  { hash: `config=${encodeURIComponent('{"num_hidden_layers": 32,')}&batch=4`, control: 'config-text', says: /config: not valid JSON/, state: { batch: 4 } },
  { hash: 'gpu_memory_utilization=1.5&batch=2', control: 'gpu-memory-utilization', says: /between 0\.01 and 1, got "1\.5"/, state: { batch: 2 } },
  { hash: 'set=num_key_value_heads%3D0&context=8192', control: 'set', says: /num_key_value_heads: must be at least 1/, state: { context_tokens: 8192 } },
  { hash: 'set=num_key_value_head%3D4&batch=3', control: 'set', says: /"num_key_value_head=4" changes nothing kvscope computes: the config has no num_key_value_head and kvscope does not read it \(did you mean num_key_value_heads\?\)/, state: { batch: 3 } },
];

test('a permalink the core rejects: the field is named beside its control, falls back, and the rest answers', async () => {
  for (const link of LINKS) {
    const { page, problems } = await open(browser, `${server.base}/index.html#${link.hash}`);
    const label = link.hash;
    const note = await noteOf(page, link.control);
    assert.ok(note, `${label}: a note beside #${link.control}`);
    assert.match(note.text, /^Not used from the link: /, label);
    assert.match(note.text, link.says, label);
    assert.equal(note.invalid, 'true', label);
    assert.ok(note.describedBy.includes(`${link.control}-error`), `${label}: the control names its note`);
    assert.ok(note.below >= -1 && note.below < 80, `${label}: the note sits just below its control (${note.below}px)`);
    // The rest of the link answers, as the CLI does for the same state with the field at its default.
    const expected = cliPlan({ ...DEFAULTS, ...link.state });
    assert.equal(await value(page, '#kv-pool'), expected.kv_pool_bytes, label);
    assert.equal(await value(page, '#max-concurrency'), expected.max_concurrency, label);
    assert.equal(await page.isHidden('#input-error'), true, `${label}: no error above the answers`);
    await page.waitForSelector('body[data-measured]', { state: 'attached' });
    assert.doesNotMatch(await page.textContent('#measured-panel'), /Loading/, label);
    // Changing the control validly removes the note and its mark.
    if (link.control === 'gpu') await page.selectOption('#gpu', 'l4');
    else if (link.control === 'model') { await page.fill('#model', 'qwen3-8b'); await page.press('#model', 'Enter'); await page.locator('#model').blur(); }
    else if (link.control === 'tp') await page.fill('#tp', '2');
    else if (link.control === 'gpu-memory-utilization') await page.fill('#gpu-memory-utilization', '0.8');
    else if (link.control === 'set') await page.fill('#set', 'num_key_value_heads=4');
    else continue;
    await page.waitForSelector(`#${link.control}-error`, { state: 'detached' });
    assert.equal(await page.getAttribute(`#${link.control}`, 'aria-invalid'), 'false', label);
    assert.deepEqual(problems, [], label);
    await page.close();
  }
});

test('a link the core refuses for what it is (DeepSeek-V4 on an A100) keeps its card and says why; on an H200 the full module plans it', async () => {
  const fetched = [];
  const { page, problems } = await open(browser, `${server.base}/index.html#model=deepseek-v4-flash&gpu=a100-sxm-80gb&tp=4`, {
    before: (p) => p.on('request', (r) => { if (/\/js\/wasm\/.*\.wasm$/.test(r.url())) fetched.push(new URL(r.url()).pathname); }),
  });
  await page.waitForSelector('#gpu-error');
  assert.equal(await page.inputValue('#gpu'), 'a100-sxm-80gb', 'the card stays');
  assert.match(await page.textContent('#gpu-error'), /vLLM runs DeepSeek-V4 on Hopper and Blackwell GPUs .*not on the NVIDIA A100/);
  assert.doesNotMatch(await page.textContent('#gpu-error'), /Not used from the link/);
  assert.equal(await page.locator('#loading').count(), 0, 'the loading line goes once the core is in');
  await page.selectOption('#gpu', 'h200-sxm-141gb');
  await page.waitForSelector('#gpu-error', { state: 'detached' });
  await page.waitForSelector('#verdict:has-text("vLLM starts")');  // once the full module is in
  assert.ok(fetched.includes('/js/wasm/kvscope_full_module.wasm'), 'its caches are the full module\'s');
  assert.equal(await value(page, '#kv-pool'), cliPlan({ ...DEFAULTS, model: 'deepseek-v4-flash', gpu: 'h200-sxm-141gb', tensor_parallel: 4 }).kv_pool_bytes);
  assert.deepEqual(problems, []);
  await page.close();
});

test('an old link with tp=8 and no gpus still plans 8 GPUs; GPUs typed below TP × PP is an error beside GPUs', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html#model=llama-3.1-70b&gpu=h100-sxm-80gb&tp=8`);
  assert.equal(await page.getAttribute('#gpus', 'placeholder'), 'auto: 8');
  assert.equal(await value(page, '#kv-pool'), cliPlan({ ...DEFAULTS, model: 'llama-3.1-70b', gpu: 'h100-sxm-80gb', tensor_parallel: 8 }).kv_pool_bytes);
  await page.fill('#gpus', '4');
  const note = await noteOf(page, 'gpus');
  assert.match(note.text, /4 GPUs are fewer than one replica needs: tp x pp = 8/);
  assert.equal(await page.getAttribute('body', 'data-stale'), 'true', 'the answers are marked as the last valid ones');
  assert.match(await page.textContent('#input-error'), /still those of the last valid inputs/);
  await page.fill('#gpus', '16');
  await page.waitForSelector('#gpus-error', { state: 'detached' });
  assert.equal(await page.getAttribute('body', 'data-stale'), null);
  assert.equal(await value(page, '#max-concurrency'),
    cliPlan({ ...DEFAULTS, model: 'llama-3.1-70b', gpu: 'h100-sxm-80gb', tensor_parallel: 8, gpus: 16 }).max_concurrency);
  assert.deepEqual(problems, []);
  await page.close();
});

test('an out-of-range value is an error beside its field, never a clamp', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html#gpu=h100-sxm-80gb`);
  const before = await value(page, '#kv-pool');
  await page.fill('#gpu-memory-utilization', '1.5');
  const note = await noteOf(page, 'gpu-memory-utilization');
  assert.match(note.text, /gpu_memory_utilization: must be between 0\.01 and 1, got "1\.5"/);
  assert.equal(await value(page, '#kv-pool'), before, 'the pool is not planned at a clamped 1.0');
  assert.equal(await page.getAttribute('body', 'data-stale'), 'true');
  await page.fill('#gpu-memory-utilization', '0.95');
  await page.waitForSelector('#gpu-memory-utilization-error', { state: 'detached' });
  assert.equal(await page.getAttribute('#gpu-memory-utilization', 'aria-invalid'), 'false');
  assert.equal(await value(page, '#kv-pool'), cliPlan({ ...DEFAULTS, gpu: 'h100-sxm-80gb', 'vllm.gpu_memory_utilization': 0.95 }).kv_pool_bytes);
  assert.deepEqual(problems, []);
  await page.close();
});

// Links and embeds written before the state took the request's keys and units (issue 41): each
// old name, in its old unit, and the value it stands for today.
const OLD_LINK = {
  weights_gb: ['13.5', 13.5e9], activation_bytes: ['2000000000', 2e9], non_torch_bytes: ['500000000', 5e8],
  mtp_tokens: ['1', 1], gpu_memory_gb: ['48', 48e9], gpu_bandwidth_tbs: ['2.039', 2.039e12], gpu_tflops: ['312', 312],
  tp: ['2', 2], pp: ['2', 2], gpu_memory_utilization: ['0.8', 0.8], block_size: ['32', 32],
  mem_fraction_static: ['0.7', 0.7], mamba_full_memory_ratio: ['0.5', 0.5], free_gpu_memory_fraction: ['0.85', 0.85],
  parallel: ['4', 4], overhead_gb: ['1.5', 1.5e9], context: ['8192', 8192], shared_prefix: ['512', 512],
  min_decode_tps: ['20', 20], max_ttft: ['2.5', 2.5], prices: ['l4:0.8', 'l4:0.8'],
};

test('every old permalink name reads into its field, in its old unit, and writes back in today\'s', () => {
  assert.deepEqual(Object.keys(OLD_LINK).sort(), Object.keys(OLD_NAMES).sort(), 'each old name is tried');
  for (const [name, [raw, want]] of Object.entries(OLD_LINK)) {
    const [field] = OLD_NAMES[name];
    const { state, refused } = parseHash(`${name}=${encodeURIComponent(raw)}`);
    assert.deepEqual(refused, [], name);
    assert.equal(state[field], want, name);
    assert.equal(toHash(state), `${encodeURIComponent(field).replace(/%2E/g, '.')}=${encodeURIComponent(String(want))}`, name);
  }
  // An old 0 meant "the default": left out now. Old 0/1 switches are booleans.
  const zeros = parseHash('block_size=0&weights_gb=0&gpus=0&mtp_tokens=0&min_decode_tps=0&allow_long_context=1');
  assert.deepEqual(zeros.refused, []);
  assert.deepEqual([zeros.state.block_size_tokens, zeros.state.weights_bytes, zeros.state.gpus,
    zeros.state['speculative_config.num_speculative_tokens'], zeros.state.min_decode_tokens_per_s, zeros.state.allow_long_context],
  [null, null, null, null, null, true]);
  // Bounds and messages stay in the name and unit the link used.
  assert.deepEqual(parseHash('gpu_memory_gb=0').refused,
    [{ field: 'gpu_memory_bytes', message: 'URL gpu_memory_gb: must be between 0.001 and 1000000, got "0"' }]);
  assert.deepEqual(parseHash('gpu_memory_bytes=5').refused,
    [{ field: 'gpu_memory_bytes', message: 'URL gpu_memory_bytes: must be between 1000000 and 1000000000000000, got "5"' }]);
  // An old link's pins are today's hashes, so the same scenario is not pinned twice.
  const pinned = parseHash(`pins=${encodeURIComponent(JSON.stringify(['tp=2&context=8192', 'model=nope%3C']))}`).state.pins;
  assert.deepEqual(JSON.parse(pinned), [scenarioHash({ ...DEFAULTS, tensor_parallel: 2, context_tokens: 8192 }), 'model=nope%3C']);
});

test('an old link opens the same scenario: controls in GB, the answer the CLI gives, the link rewritten on the next change', async () => {
  const old = 'gpu_memory_gb=48&gpu_bandwidth_tbs=2&gpu_memory_utilization=0.8&context=32768&shared_prefix=1024&batch=4&weights_gb=15';
  const { page, problems } = await open(browser, `${server.base}/index.html#${old}`);
  const today = { ...DEFAULTS, gpu_memory_bytes: 48e9, gpu_bandwidth_bytes_per_s: 2e12, 'vllm.gpu_memory_utilization': 0.8,
    context_tokens: 32768, shared_prefix_tokens: 1024, batch: 4, weights_bytes: 15e9 };
  assert.deepEqual(parseHash(old).state, today);
  assert.equal(await page.inputValue('#gpu-memory-gb'), '48');
  assert.equal(await page.inputValue('#gpu-bandwidth-tbs'), '2');
  assert.equal(await page.inputValue('#weights-gb'), '15');
  assert.equal(await page.inputValue('#context'), '32768');
  const expected = cliPlan(today);
  assert.equal(await value(page, '#kv-pool'), expected.kv_pool_bytes);
  assert.equal(await value(page, '#max-concurrency'), expected.max_concurrency);
  await page.fill('#batch', '5');
  await page.waitForURL((url) => url.hash === `#${toHash({ ...today, batch: 5 })}`);
  assert.match(page.url(), /gpu_memory_bytes=48000000000&gpu_bandwidth_bytes_per_s=2000000000000&/);
  // A GB control's error speaks its unit.
  await page.fill('#gpu-memory-gb', '0');
  assert.match((await noteOf(page, 'gpu-memory-gb')).text, /^gpu_memory_bytes in GB: must be between 0\.001 and 1000000, got "0"$/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('model spellings as users type them; an unknown one gets the core\'s suggestion beside the box', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  for (const [spelling, id] of [['Qwen/Qwen3-32B', 'qwen3-32b'], ['Qwen3 32B', 'qwen3-32b'], ['Llama-3.1-8B', 'llama-3.1-8b']]) {
    await page.fill('#model', spelling);
    await page.locator('#model').dispatchEvent('change');
    await page.waitForFunction((want) => location.hash.includes(`model=${want}`) || (want === 'llama-3.1-8b' && !location.hash.includes('model=')), id);
    assert.equal(await value(page, '#kv-bytes-per-token'), cliPlan({ ...DEFAULTS, model: id }).kv_bytes_per_token, spelling);
  }
  await page.fill('#model', 'llama3-8b');
  await page.locator('#model').dispatchEvent('change');
  const note = await noteOf(page, 'model');
  assert.match(note.text, /unknown id "llama3-8b" \(did you mean llama-3-8b\?\)/);
  assert.equal(await page.getAttribute('body', 'data-stale'), 'true', 'the previous model\'s answers are marked as such');
  assert.deepEqual(problems, []);
  await page.close();
});

const SMALL_CONFIG = { architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3', num_hidden_layers: 2, hidden_size: 256,
  num_attention_heads: 4, num_key_value_heads: 2, head_dim: 64, intermediate_size: 512, vocab_size: 1000,
  max_position_embeddings: 4096, torch_dtype: 'bfloat16' };

test('a pasted config: named by its repository or architecture, back in the text box from a permalink', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  await page.click('#config-details summary');
  await page.fill('#config-text', JSON.stringify(SMALL_CONFIG));
  await page.click('#use-config');
  await page.waitForFunction(() => /Qwen3ForCausalLM/.test(document.getElementById('model-source').textContent));
  assert.match(await page.textContent('#model-source'), /^Using pasted config\.json \(Qwen3ForCausalLM\)/);
  await page.fill('#config-text', JSON.stringify({ ...SMALL_CONFIG, _name_or_path: 'Qwen/Qwen3-Tiny' }));
  await page.click('#use-config');
  await page.waitForFunction(() => /vllm serve Qwen\/Qwen3-Tiny/.test(document.getElementById('engine-command')?.value ?? ''));
  await page.waitForURL(/config_name=Qwen%2FQwen3-Tiny/);
  const link = page.url();
  await page.close();
  const again = await open(browser, link);
  assert.equal(await again.page.inputValue('#config-text'), JSON.stringify({ ...SMALL_CONFIG, _name_or_path: 'Qwen/Qwen3-Tiny' }));
  assert.equal(await value(again.page, '#kv-bytes-per-token'), 2 * 2 * 2 * 64 * 2);
  assert.deepEqual([...problems, ...again.problems], []);
  await again.page.close();
});

test('Load from Hugging Face: the button waits and says so, the old model\'s name goes at once', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route('https://huggingface.co/**', async (route) => {
    await held;
    if (route.request().url().endsWith('/config.json')) {
      await route.fulfill({ status: 200, contentType: 'application/json', headers: { 'access-control-allow-origin': '*' }, body: JSON.stringify(SMALL_CONFIG) });
    } else await route.fulfill({ status: 404, headers: { 'access-control-allow-origin': '*' }, body: 'none' });
  });
  await page.click('#config-details summary');
  await page.fill('#hf-id', 'Qwen/Qwen3-Tiny');
  await page.click('#hf-load');
  assert.equal(await page.isDisabled('#hf-load'), true);
  assert.equal(await page.textContent('#hf-load'), 'Loading…');
  assert.match(await page.textContent('#model-source'), /^Loading Qwen\/Qwen3-Tiny's config\.json from huggingface\.co…$/);
  release();
  await page.waitForFunction(() => !document.getElementById('hf-load').disabled);
  assert.match(await page.textContent('#model-source'), /^Using Qwen\/Qwen3-Tiny/);
  assert.deepEqual(problems.filter((p) => !/404/.test(p)), []);
  await page.close();
});

test('opening the config section adds no horizontal scrolling, desktop or phone', async () => {
  for (const [width, height] of [[1280, 900], [390, 844]]) {
    const { page, problems } = await open(browser, `${server.base}/index.html`, { width, height });
    for (const details of await page.locator('.inputs details').all()) await details.evaluate((d) => { d.open = true; });
    await page.fill('#config-text', JSON.stringify(SMALL_CONFIG));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${width}px: ${overflow}px of horizontal scrolling`);
    assert.deepEqual(problems, []);
    await page.close();
  }
});
