// The page in headless Chromium, as a user drives it: the default story, controls, permalinks,
// the CLI's numbers for the same scenarios, hostile configs and URLs. Screenshots are saved.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { siteDir } from '../paths.mjs';
import { serve, launch, open, screenshot, cliPlan, showSweeps, value } from './support.mjs';

const { DEFAULTS, toHash } = await import(path.join(siteDir, 'js/state.js'));

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });


test('first open: the article-2 story, no console errors', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  const expected = cliPlan(DEFAULTS);
  assert.equal(await value(page, '#kv-bytes-per-token'), 131072);
  assert.equal(await value(page, '#kv-per-sequence'), 16 * 2 ** 30);
  assert.match(await page.textContent('#kv-per-sequence'), /16\.00 GiB/);
  assert.match(await page.textContent('#kv-panel'), /2 × 32 × 8 × 128 × 2 = 131,072 bytes/);
  assert.equal(await page.getAttribute('.verdict', 'data-starts'), 'false');
  assert.match(await page.textContent('#verdict-headline'), /vLLM will not start/);
  assert.equal(await page.textContent('#startup-error'), expected.startup_error);
  assert.equal(Number(await page.getAttribute('.verdict', 'data-fits')), expected.max_model_len_that_fits);
  assert.equal(await value(page, '#projections-without'), 2336);
  assert.equal(await value(page, '#projections-with'), 68);
  assert.deepEqual(problems, []);
  await screenshot(page, 'page-desktop');
  await page.close();
  const phone = await open(browser, `${server.base}/index.html`, { width: 390, height: 844 });
  const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `no horizontal scrolling on a phone (${overflow}px)`);
  await screenshot(phone.page, 'page-phone');
  assert.deepEqual(phone.problems, []);
  await phone.page.close();
});

test('changing a control changes the answer and the URL', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  await page.selectOption('#kv-dtype', 'fp8');
  assert.equal(await value(page, '#kv-bytes-per-token'), 65536);
  await page.waitForURL(/kv_dtype=fp8/);
  await page.fill('#gpu-memory-utilization', '0.95');
  const before95 = cliPlan({ ...DEFAULTS, kv_dtype: 'fp8', 'vllm.gpu_memory_utilization': 0.95 });
  assert.equal(await value(page, '#kv-pool'), before95.kv_pool_bytes);
  await page.click('#use-fitting-context').catch(() => {});
  await page.click('#units-gb');
  assert.match(await page.textContent('#kv-per-sequence'), / GB/);
  assert.deepEqual(problems, []);
  await page.close();
});

const SCENARIOS = [
  { ...DEFAULTS },
  { ...DEFAULTS, model: 'llama-2-7b', gpu: 'a100-sxm-80gb', engine: 'plain', context_tokens: 4096, kv_dtype: 'fp16' },
  { ...DEFAULTS, model: 'deepseek-v2-lite', gpu: 'h100-sxm-80gb', kv_dtype: 'fp8', context_tokens: 32768, batch: 8 },
  { ...DEFAULTS, model: 'gemma-3-27b', gpu: 'h100-sxm-80gb', engine: 'sglang', tensor_parallel: 2, gpus: 4, context_tokens: 65536 },
  { ...DEFAULTS, model: 'mistral-7b-v0.1', gpu: 'rtx-4090', engine: 'llama.cpp', kv_dtype: 'q8_0', weight_dtype: 'q4_k_m', 'llama_cpp.parallel': 4, context_tokens: 8192 },
  { ...DEFAULTS, model: 'llama-3.1-70b', gpu: 'a100-sxm-80gb', engine: 'tensorrt-llm', tensor_parallel: 4, pipeline_parallel: 2, context_tokens: 32768, prompt_lengths: 'uniform:512-8192', output_lengths: '1024' },
];

test('the context follows a newly picked model\'s limit until the user sets one', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  const pick = async (model) => {
    await page.fill('#model', model);
    await page.locator('#model').dispatchEvent('change');
  };
  await pick('qwen3-8b');  // a 40,960-token model: not refused for its limit at the default
  await page.waitForFunction(() => document.getElementById('context').value === '40960');
  assert.doesNotMatch(await page.textContent('#verdict'), /greater than the derived max_model_len/);
  await pick('llama-3.1-8b');  // back within the default
  await page.waitForFunction(() => document.getElementById('context').value === '131072');
  await page.fill('#context', '65536');  // chosen: it stays
  await pick('qwen3-8b');
  await page.waitForURL(/model=qwen3-8b/);
  assert.equal(await page.inputValue('#context'), '65536');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the page shows the numbers of `kvscope plan --json` for the same scenario', async () => {
  for (const s of SCENARIOS) {
    const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(s)}`);
    const r = cliPlan(s);
    const label = JSON.stringify(toHash(s));
    assert.equal(await value(page, '#kv-bytes-per-token'), r.kv_bytes_per_token, label);
    assert.equal(await value(page, '#kv-per-sequence'), r.kv_bytes_per_sequence, label);
    assert.equal(await value(page, '#kv-pool'), r.kv_pool_bytes, label);
    assert.equal(await value(page, '#max-concurrency'), r.max_concurrency, label);
    assert.equal(await value(page, '#max-context'), r.max_context, label);
    assert.equal(await page.getAttribute('.verdict', 'data-starts'), String(r.starts), label);
    if (r.roofline.available) assert.equal(await value(page, '#decode'), r.roofline.decode.tokens_per_s, label);
    await showSweeps(page, '#memory-panel');  // the card's memory table, drawn near the viewport
    assert.equal(Number(await page.getAttribute('td[data-key="weights_bytes"]', 'data-value')), r.weights_bytes, label);
    assert.match(await page.inputValue('#cli-command'), /^kvscope plan /);
    assert.deepEqual(problems, [], label);
    await page.close();
  }
});

test('a permalink restores every input', async () => {
  const { page } = await open(browser, `${server.base}/index.html`);
  await page.selectOption('#gpu', 'h100-sxm-80gb');
  await page.selectOption('#engine', 'sglang');
  await page.fill('#tp', '2');
  await page.fill('#context', '32768');
  await page.fill('#batch', '12');
  await page.selectOption('#kv-dtype', 'fp8');
  await page.click('#units-gb');
  const link = await page.inputValue('#permalink');
  const figures = await page.getAttribute('#kv-pool', 'data-value');
  await page.close();
  const restored = await open(browser, link);
  const p = restored.page;
  assert.equal(await p.inputValue('#gpu'), 'h100-sxm-80gb');
  assert.equal(await p.inputValue('#engine'), 'sglang');
  assert.equal(await p.inputValue('#tp'), '2');
  assert.equal(await p.inputValue('#context'), '32768');
  assert.equal(await p.inputValue('#batch'), '12');
  assert.equal(await p.inputValue('#kv-dtype'), 'fp8');
  assert.equal(await p.isChecked('#units-gb'), true);
  assert.equal(await p.getAttribute('#kv-pool', 'data-value'), figures);
  assert.deepEqual(restored.problems, []);
  await p.close();
});

const PAYLOAD = '<img src=x onerror="window.__pwned=1">';

async function assertNothingInjected(page) {
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no injected script ran');
  assert.equal(await page.locator('img').count(), 0, 'no injected element');
}

test('a broken or hostile config.json shows an error and the page keeps working', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  await page.click('#config-details summary');
  await page.fill('#config-text', '{"num_hidden_layers": 32, "hidden_size": ');
  await page.click('#use-config');
  await page.waitForSelector('#input-error:not([hidden])');  // the first config fetches the full module
  assert.match(await page.textContent('#input-error'), /config: not valid JSON/);
  await page.fill('#config-text', JSON.stringify({ num_hidden_layers: PAYLOAD, hidden_size: 4096, num_attention_heads: 32 }));
  await page.click('#use-config');
  assert.match(await page.textContent('#input-error'), /num_hidden_layers/);
  const hostileNames = { _name_or_path: PAYLOAD, architectures: [PAYLOAD], model_type: 'llama', num_hidden_layers: 2,
    hidden_size: 256, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 512, vocab_size: 1000,
    max_position_embeddings: 4096, torch_dtype: 'bfloat16' };
  await page.fill('#config-text', JSON.stringify(hostileNames));
  await page.click('#use-config');
  assert.equal(await value(page, '#kv-bytes-per-token'), 2 * 2 * 2 * 64 * 2);
  await assertNothingInjected(page);
  await page.click('#clear-config');
  assert.equal(await value(page, '#kv-bytes-per-token'), 131072, 'back to the catalogue model');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a hostile URL shows an error and no script runs', async () => {
  const hash = new URLSearchParams({ model: PAYLOAD, context: '1e999', engine: '<script>window.__pwned=1</script>',
    batch: '-3', gpu: 'javascript:alert(1)', pins: `["${PAYLOAD}"]`, config_name: PAYLOAD, bogus: PAYLOAD }).toString();
  const { page, problems } = await open(browser, `${server.base}/index.html#${hash}`);
  // Each refused field beside its control; the unknown one, which has none, above the page.
  for (const [control, field] of [['model', 'model'], ['context', 'context'], ['engine', 'engine'], ['batch', 'batch'], ['gpu', 'gpu']]) {
    assert.match(await page.textContent(`#${control}-error`), new RegExp(`^Not used from the link: URL ${field}: `));
  }
  assert.match(await page.textContent('#page-error'), /^URL unknown field "bogus"\. Those fields keep their defaults\.$/);
  assert.equal(await value(page, '#kv-bytes-per-token'), 131072, 'defaults still answer');
  await assertNothingInjected(page);
  await page.fill('#context', '10000000000000000');
  assert.equal(await page.getAttribute('#context', 'aria-invalid'), 'true');
  await page.fill('#context', '8192');
  assert.equal(await value(page, '#kv-per-sequence'), 8192 * 131072);
  assert.deepEqual(problems, []);
  await page.close();
});

test('load from Hugging Face: only on click, only that host; offline, gated and real answers', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  const requests = [];
  page.on('request', (r) => { if (!r.url().startsWith(server.base)) requests.push(r); });
  let reply = (route) => route.abort('internetdisconnected');
  await page.route('https://huggingface.co/**', (route) => reply(route));
  await page.click('#config-details summary');
  assert.deepEqual(requests, [], 'nothing is fetched before the click');
  await page.fill('#hf-id', 'not a model id');
  await page.click('#hf-load');
  assert.match(await page.textContent('#input-error'), /expected org\/name/);
  await page.fill('#hf-id', 'Qwen/Qwen2.5-7B-Instruct');
  await page.click('#hf-load');
  await page.waitForFunction(() => /could not reach/.test(document.body.dataset.error ?? ''));
  reply = (route) => route.fulfill({ status: 401, body: 'gated' });
  await page.click('#hf-load');
  await page.waitForFunction(() => /gated or private/.test(document.body.dataset.error ?? ''));
  const config = { model_type: 'qwen2', num_hidden_layers: 28, hidden_size: 3584, num_attention_heads: 28,
    num_key_value_heads: 4, intermediate_size: 18944, vocab_size: 152064, max_position_embeddings: 32768,
    torch_dtype: 'bfloat16', tie_word_embeddings: false };
  // The repository's index beside its config.json: its total_size becomes the weights.
  const index = { metadata: { total_size: 15231233024 }, weight_map: {} };
  reply = (route) => route.fulfill({ status: 200, contentType: 'application/json', headers: { 'access-control-allow-origin': '*' },
    body: JSON.stringify(route.request().url().endsWith('/model.safetensors.index.json') ? index : config) });
  await page.click('#hf-load');
  await page.waitForFunction(() => document.getElementById('kv-bytes-per-token')?.dataset.value === String(2 * 28 * 4 * 128 * 2));
  const repo = 'https://huggingface.co/Qwen/Qwen2.5-7B-Instruct/resolve/main/';
  assert.ok(requests.every((r) => [`${repo}config.json`, `${repo}model.safetensors.index.json`].includes(r.url())), requests.map((r) => r.url()).join());
  assert.match(await page.textContent('#weights-source'), /total_size 15,231,233,024 bytes, exactly/);
  assert.ok(requests.every((r) => !r.headers().cookie && !r.headers().referer), 'no cookies, no referrer');
  assert.match(await page.inputValue('#engine-command'), /vllm serve Qwen\/Qwen2\.5-7B-Instruct/);
  assert.deepEqual(problems.filter((p) => !/Failed to load resource|ERR_INTERNET_DISCONNECTED|401/.test(p)), []);
  await page.close();
});

test('what-if levers and pinned comparisons', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  await page.click('#what-if-run');
  await page.waitForSelector('#what-if-table tbody tr');  // the levers may wait for the full module
  const rows = await page.locator('#what-if-table tbody tr').count();
  assert.ok(rows >= 3, `${rows} serving levers`);
  assert.match(await page.textContent('#what-if-table'), /fp8 KV cache/);
  // The articles' levers change the model: shown apart, never ranked with the knobs.
  assert.doesNotMatch(await page.textContent('#what-if-table'), /KV heads|window/);
  assert.match(await page.textContent('#what-if-model'), /half the KV heads.*4,096-token sliding window/s);
  // One 131,072-token sequence does not fit the 24 GB card as planned: fp8 weights and KV make it
  // fit on the one card, the smallest change, one click away (once the solver's module is in).
  await page.waitForSelector('#what-if-target:not(.loading)');
  assert.match(await page.textContent('#what-if-target'), /^To hold 1 sequence of 131,072 tokens on 24 GB card: 1 GPU \(TP 1 × PP 1 × 1 replica\), KV fp8, weights fp8/);
  await page.click('#what-if-open');
  await page.waitForURL(/weight_dtype=fp8/);
  assert.equal(await page.getAttribute('.verdict', 'data-starts'), 'true');
  await page.click('#pin-examples');
  const table = await page.textContent('#compare-table');
  for (const bytes of ['524,288', '131,072']) assert.ok(table.includes(bytes), bytes);
  assert.match(table, /DeepSeek-V2-Lite/);
  await screenshot(page, 'page-what-if-compare');
  await page.selectOption('#theme', 'dark');
  await screenshot(page, 'page-dark');
  assert.deepEqual(problems, []);
  await page.close();
});

test('pins never replace each other: duplicates and a fifth are refused with a reason', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  const pinned = async () => JSON.parse(new URLSearchParams(new URL(page.url()).hash.slice(1)).get('pins') ?? '[]').length;
  await page.click('#pin-examples');
  await page.waitForURL(/pins=/);
  assert.equal(await pinned(), 3);
  await page.click('#pin-examples');
  assert.match(await page.textContent('#pin-status'), /^MHA vs GQA vs MLA are already pinned\.$/);
  assert.equal(await pinned(), 3);
  await page.click('#pin');
  const waitPins = (n, text = '') => page.waitForFunction(([count, part]) => {
    const p = new URLSearchParams(location.hash.slice(1)).get('pins');
    return p !== null && JSON.parse(p).length === count && JSON.parse(p).some((h) => h.includes(part));
  }, [n, text]);
  await waitPins(4);
  await page.click('#pin');
  assert.match(await page.textContent('#pin-status'), /^This scenario is already pinned\.$/);
  await page.fill('#context', '8192');
  await page.waitForURL(/context_tokens=8192/);
  await page.click('#pin');
  assert.match(await page.textContent('#pin-status'), /^4 scenarios at most: 4 pinned, This scenario would add 1\. Remove one/);
  assert.equal(await pinned(), 4);
  await page.click('button.remove >> nth=0');
  await page.click('#pin');
  await waitPins(4, 'context_tokens=8192');
  assert.equal(await page.textContent('#pin-status'), '');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the context slider speaks tokens and its arrow keys step by powers of two', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  assert.equal(await page.getAttribute('#context-slider', 'aria-valuetext'), '131,072 tokens');
  await page.focus('#context-slider');
  await page.keyboard.press('ArrowRight');
  await page.waitForURL(/context_tokens=262144/);
  assert.equal(await page.getAttribute('#context-slider', 'aria-valuetext'), '262,144 tokens');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await page.waitForURL(/context_tokens=65536/);
  await page.fill('#context', '100000');
  await page.waitForURL(/context_tokens=100000/);
  await page.focus('#context-slider');
  await page.keyboard.press('ArrowDown');  // from between two powers: the one below
  await page.waitForURL(/context_tokens=65536/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the first Tab stop skips to the answer', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to the answer');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.id === 'verdict');
  assert.deepEqual(problems, []);
  await page.close();
});

test('"Use N" keeps the focus on the verdict it changes', async () => {
  const fits = cliPlan(DEFAULTS).max_model_len_that_fits;  // 28,256 under today's vLLM
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  await page.focus('#use-fitting-context');
  await page.keyboard.press('Enter');
  await page.waitForURL(new RegExp(`context_tokens=${fits}`));
  await page.waitForFunction(() => document.activeElement?.id === 'verdict');
  assert.match(await page.textContent('#verdict-headline'),
    new RegExp(`^vLLM starts: Llama 3\\.1 8B on 24 GB card at max_model_len ${fits.toLocaleString('en-US')}`));
  assert.deepEqual(problems, []);
  await page.close();
});

test('every Copy button names what it copies', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  await page.click('#embed-details summary');
  // The snippets are drawn on the details' toggle event, a task after the click.
  await page.waitForSelector('#embed-panel button');
  const names = await page.$$eval('button', (bs) => bs.filter((b) => b.textContent.startsWith('Copy'))
    .map((b) => b.getAttribute('aria-label') ?? b.textContent));
  assert.ok(names.length >= 5, names.join(' | '));
  assert.equal(new Set(names).size, names.length, names.join(' | '));
  assert.ok(names.includes('Copy the permalink'));
  assert.deepEqual(problems, []);
  await page.close();
});

test('"Embed this" writes a custom-element and an iframe snippet for the scenario', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html#model=llama-2-7b&kv_dtype=fp8`);
  await page.click('#embed-details summary');
  await page.selectOption('#embed-view', 'concurrency');
  const element = await page.inputValue('#embed-element');
  assert.match(element, /<script type="module" src="http:\/\/127\.0\.0\.1:\d+\/embed\/define\.js"><\/script>/);
  assert.match(element, /<kv-cache-explorer view="concurrency" model="llama-2-7b" kv-dtype="fp8"/);
  assert.match(await page.inputValue('#embed-iframe'), /embed\.html#model=llama-2-7b&amp;kv_dtype=fp8&amp;view=concurrency/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('measured decode attention: only the chosen GPU\'s records, "not measured yet" otherwise, closed and after the answers', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const dir = path.join(siteDir, 'data/measured');
  const records = readdirSync(dir).filter((f) => f !== 'index.json').map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')));
  assert.ok(records.length > 0, 'the site publishes kvbench records');
  for (const r of records) {
    assert.equal(r.schema, 'kvscope.measured/1');
    assert.ok(r.meta.commit && r.meta.date && r.meta.command.startsWith('kvbench attention'), 'provenance');
    assert.ok(r.correctness.pass);
  }
  const fetched = [];
  const { page, problems } = await open(browser, `${server.base}/index.html#gpu=h100-sxm-80gb`,
    { before: (p) => p.on('request', (r) => { if (r.url().includes('/data/measured/')) fetched.push(new URL(r.url()).pathname); }) });
  await page.waitForSelector('body[data-measured]', { state: 'attached' });
  assert.deepEqual(fetched, ['/data/measured/index.json'], 'the index names each record\'s device: no CPU record is fetched for a GPU');
  assert.equal(await page.getAttribute('#measured-details', 'open'), null, 'collapsed by default');
  assert.equal(await page.textContent('#measured-summary'), 'not measured yet on NVIDIA H100 SXM5 80GB');
  await page.click('#measured-details summary');
  assert.match(await page.textContent('#measured-none'), /^Not measured yet on NVIDIA H100 SXM5 80GB: the figures above are estimates\. To measure, run native-bench\/gpu-check\.sh/);
  // The decode step three ways: the roofline, calibrated by the nearest cited measurement of the
  // H100's class (the CLI's figure), and "not measured" by kvbench.
  const cal = cliPlan({ ...DEFAULTS, gpu: 'h100-sxm-80gb' }).roofline.decode_calibrated;
  assert.ok(cal.available, 'Hopper has a published decode measurement');
  assert.equal(Number(await page.getAttribute('#decode-calibrated', 'data-time')), cal.time_s);
  assert.match(await page.textContent('#measured-sides'), new RegExp(`calibrated by a published measurement \\(${cal.measurement.measured_on}, ${Math.round(cal.kv_bandwidth_efficiency * 100)}% of the datasheet bandwidth; cited, not measured by kvscope\\); not measured by kvbench on NVIDIA H100 SXM5 80GB\\.$`));
  assert.equal(await page.locator('#measured-table').count(), 0, 'no rows of other devices (this project\'s CPUs)');
  assert.equal(await page.isHidden('#chart-measured'), true);
  const order = await page.evaluate(() => [...document.querySelectorAll('.results > section')].map((x) => x.getAttribute('aria-labelledby')));
  assert.ok(order.indexOf('h-measured') > order.indexOf('h-notes'), `after the answers: ${order}`);
  assert.deepEqual(problems, []);
  await page.close();
  // A record of the chosen GPU is shown (a copy of a CPU record relabelled as an H100's, served
  // only to this test: it checks the matching, it is not a measurement).
  const fake = { ...records[0], device: { kind: 'gpu', name: 'NVIDIA H100 SXM5 80GB', catalogue_id: 'h100-sxm-80gb' } };
  const withGpu = await browser.newPage();
  await withGpu.route('**/data/measured/index.json', (route) => route.fulfill({ contentType: 'application/json',
    body: JSON.stringify({ files: [...readdirSync(dir).filter((f) => f !== 'index.json'), 'test-h100.json'] }) }));
  await withGpu.route('**/data/measured/test-h100.json', (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify(fake) }));
  await withGpu.goto(`${server.base}/index.html#gpu=h100-sxm-80gb`);
  await withGpu.waitForSelector('body[data-measured]', { state: 'attached' });
  assert.equal(await withGpu.textContent('#measured-summary'), '1 kvbench record on NVIDIA H100 SXM5 80GB');
  await withGpu.click('#measured-details summary');
  assert.equal(await withGpu.locator('#measured-table tbody tr').count(), 1);
  await withGpu.waitForSelector('#chart-measured canvas');  // the measured chart, once the chart library is in
  await withGpu.close();
});

test('a hybrid under vLLM: the groups, what each takes per request, and the printed figure beside the real capacity', async () => {
  const s = { ...DEFAULTS, model: 'gemma-3-12b', gpu: 'l40s' };
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(s)}`);
  const r = cliPlan(s);
  const g = r.kv_cache_groups;
  assert.ok(g && g.types.length === 2, 'the CLI reports the groups');
  const text = await page.textContent('#hybrid-accounting');
  const groups = g.types.reduce((n, t) => n + t.groups, 0);
  assert.match(text, new RegExp(`keeps the layers in ${groups} groups of ${g.group_size_layers} layers`));
  for (const t of g.types) assert.match(text, new RegExp(`takes ${t.blocks_per_request.toLocaleString('en-US')} blocks`));
  const n = (x) => x.toLocaleString('en-US');
  assert.ok(text.includes(`One request takes ${n(g.blocks_per_request)} blocks in all, so ${n(r.num_blocks)} ÷ ${n(g.blocks_per_request)} = ${r.max_concurrency.toFixed(2)} requests`), text);
  assert.ok(text.includes(`"GPU KV cache size: ${n(r.kv_pool_tokens)} tokens"`), 'the engine\'s printed figure');
  // From 0.21 vLLM prints the concurrency in tokens; 0.20 printed blocks ÷ groups × block size.
  assert.ok(text.includes(`${r.max_concurrency.toFixed(2)} requests × ${n(r.max_model_len)} tokens, what the pool holds`), text);
  assert.equal(await page.locator('#hybrid-accounting').count(), 1);
  await page.close();
  const old = { ...s, engine_version: '0.20' };
  const before = await open(browser, `${server.base}/index.html#${toHash(old)}`);
  const printed = cliPlan(old).kv_pool_tokens;
  const oldText = await before.page.textContent('#hybrid-accounting');
  assert.ok(oldText.includes(`"GPU KV cache size: ${n(printed)} tokens"`) && /understates the capacity/.test(oldText), oldText);
  problems.push(...before.problems);
  await before.page.close();
  const plain = await open(browser, `${server.base}/index.html#gpu=l40s`);
  assert.equal(await plain.page.locator('#hybrid-accounting').count(), 0, 'one group: nothing to explain');
  assert.deepEqual([...problems, ...plain.problems], []);
  await plain.page.close();
});
