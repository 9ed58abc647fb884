// The embeddable widget in headless Chromium: the worked article's numbers against the CLI, a host
// page with two widgets, hostile attributes and hostile CSS, and the iframe's height messages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { siteDir } from '../paths.mjs';
import { serve, launch, open, screenshot, cliPlan as cliPlanOf } from './support.mjs';

const { DEFAULTS } = await import(path.join(siteDir, 'js/state.js'));

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const cliPlan = (changes) => cliPlanOf({ ...DEFAULTS, ...changes });

// Opens a page with widgets, records every widget event from the start, scrolls so each one
// becomes visible, and waits until `count` widgets have answered.
async function openWidgets(url, count, options = {}) {
  // The listeners go in before the page's scripts: a widget in the first screen may answer at once.
  const { page, problems } = await open(browser, url, { ready: null, ...options, init: () => {
    window.__seen = [];
    for (const type of ['kvscope-result', 'kvscope-error']) {
      document.addEventListener(type, (e) => window.__seen.push({ type, id: e.target.id, detail: e.detail }));
    }
  } });
  // Two frames at each position: a widget answers once a frame has seen it in view, and a busy
  // main thread would otherwise let the scroll pass a widget between two frames.
  for (let y = 0; y < 20000; y += 500) {
    await page.evaluate((v) => new Promise((r) => { window.scrollTo(0, v); requestAnimationFrame(() => requestAnimationFrame(r)); }), y);
    if (await page.evaluate(() => window.scrollY + innerHeight >= document.documentElement.scrollHeight)) break;
  }
  await page.waitForFunction((n) => new Set(document.querySelectorAll('kv-cache-explorer')).size <= n &&
    [...document.querySelectorAll('kv-cache-explorer')].every((w) => w.shadowRoot.querySelector('.answer, .error')), count);
  // What the page fetched, from its own resource timing: a listener attached here could miss
  // requests made before it.
  const wasm = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('.wasm')));
  return { page, problems, wasm };
}

const inWidget = (page, id, selector) => page.evaluate(([i, s]) =>
  [...document.getElementById(i).shadowRoot.querySelectorAll(s)].map((e) => e.dataset.value ?? e.textContent), [id, selector]);

test('the worked article: every widget shows the numbers of kvscope for its scenario', async () => {
  const { page, problems } = await openWidgets(`${server.base}/examples/why-kv-cache-limits-concurrency.html`, 7);
  assert.deepEqual(await inWidget(page, 'w-projections', '#projections-without, #projections-with'), ['2336', '68']);
  assert.deepEqual(await inWidget(page, 'w-mha', '#kv-bytes-per-token'), ['524288']);
  assert.deepEqual(await inWidget(page, 'w-gqa', '#kv-bytes-per-token'), ['131072']);
  const perSequence = (await inWidget(page, 'w-contexts', 'td[data-value]')).filter((_, i) => i % 2 === 0).map(Number);
  assert.deepEqual(perSequence, [0.5, 1, 4, 16].map((g) => g * 2 ** 30));
  const card = { model: 'llama-2-7b', engine: 'plain', gpu: 'custom', gpu_memory_bytes: 80e9, weights_bytes: 13.5e9, kv_dtype: 'fp16', context_tokens: 4096 };
  const fits = [cliPlan(card), cliPlan({ ...card, set: 'num_key_value_heads=8' }), cliPlan({ ...card, set: 'num_key_value_heads=8', kv_dtype: 'int8' })]
    .map((r) => Math.floor(r.max_concurrency));
  assert.deepEqual(fits, [30, 123, 247]);
  const shown = await page.evaluate(() => window.__seen.find((e) => e.id === 'w-card' && e.type === 'kvscope-result').detail.result.map((x) => Math.floor(x.report.max_concurrency)));
  assert.deepEqual(shown, fits);
  const refused = cliPlan({ engine_version: '0.16' });  // the article's vLLM, as its widgets say
  assert.equal(await page.evaluate(() => document.getElementById('w-startup').shadowRoot.querySelector('.verdict').dataset.starts), 'false');
  assert.deepEqual(await inWidget(page, 'w-startup', '#startup-error'), [refused.startup_error]);
  const levers = await page.evaluate(() => window.__seen.find((e) => e.id === 'w-levers' && e.type === 'kvscope-result').detail.result.map((x) => x.report.starts));
  assert.deepEqual(levers, [{ kv_dtype: 'fp8' }, { weight_dtype: 'awq-int4' }, { 'vllm.gpu_memory_utilization': 0.95 }, { kv_dtype: 'fp8', weight_dtype: 'awq-int4' }]
    .map((c) => cliPlan({ ...c, engine_version: '0.16' }).starts));
  assert.ok(levers.includes(true) && levers.includes(false));
  assert.deepEqual(problems, []);  // its screenshots: article.test.mjs
  await page.close();
});

test('a host page: widgets share one module, update independently, keep their styles, contain hostile values', async () => {
  const { page, problems, wasm } = await openWidgets(`${server.base}/test-host/host.html`, 4);
  assert.equal(wasm.filter((u) => u.includes('/js/wasm/')).length, 1, 'the host page fetched the module once');
  const instantiations = await page.evaluate(async () => (await import('/js/kvscope-client.js')).instantiations());
  assert.equal(instantiations, 1, 'one WebAssembly instance for every widget');
  const before = await inWidget(page, 'b', '#kv-bytes-per-token');
  const a0 = await inWidget(page, 'a', '.big');
  await page.evaluate(() => document.getElementById('a').setAttribute('context', '8192'));
  await page.waitForFunction((old) => document.getElementById('a').shadowRoot.querySelector('.big')?.dataset.value !== old, a0[0]);
  assert.ok(Number((await inWidget(page, 'a', '.big'))[0]) > Number(a0[0]), 'shorter context, more sequences');
  assert.deepEqual(await inWidget(page, 'b', '#kv-bytes-per-token'), before, 'the other widget did not change');
  // The reader's control changes the attribute, and the widget answers again.
  await page.evaluate(() => { const s = document.getElementById('b').shadowRoot.querySelector('select'); s.value = 'fp8'; s.dispatchEvent(new Event('change')); });
  await page.waitForFunction(() => document.getElementById('b').shadowRoot.querySelector('#kv-bytes-per-token')?.dataset.value === '262144');
  assert.equal(await page.getAttribute('#b', 'kv-dtype'), 'fp8');
  // Host CSS does not reach in; widget CSS does not leak out.
  const inside = await page.evaluate(() => { const s = getComputedStyle(document.getElementById('a').shadowRoot.querySelector('.big')); return [s.color, s.fontSize]; });
  assert.notEqual(inside[0], 'rgb(255, 0, 0)');
  assert.notEqual(inside[1], '40px');
  assert.equal(await page.evaluate(() => getComputedStyle(document.getElementById('host-text')).fontWeight), '400');
  // Hostile attributes: an error inside that widget only, an event naming the attribute, no script.
  assert.match((await inWidget(page, 'hostile', '.error'))[0], /model: unexpected characters/);
  assert.match((await inWidget(page, 'huge', '.error'))[0], /context: must be between/);
  const errors = await page.evaluate(() => window.__events.filter((e) => e.type === 'kvscope-error').map((e) => `${e.id}:${e.detail.field}`));
  assert.ok(errors.includes('hostile:model') && errors.includes('huge:context'), errors.join());
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  // A comparison keeps to the explorer's four pins, so its "Open in kvscope" restores every scenario.
  const tooMany = await page.evaluate(() => new Promise((resolve) => {
    const w = document.createElement('kv-cache-explorer');
    w.setAttribute('view', 'compare');
    w.setAttribute('compare', 'context=1024 | context=2048 | context=4096 | context=8192 | context=16384');
    w.addEventListener('kvscope-error', (e) => { w.remove(); resolve(e.detail); });
    document.body.append(w);
    w.scrollIntoView();
  }));
  assert.deepEqual(tooMany, { code: 'invalid_value', field: 'compare', message: "compare: 4 scenarios at most (the explorer's pins), got 5" });
  assert.equal(await page.evaluate(() => [document, ...[...document.querySelectorAll('kv-cache-explorer')].map((w) => w.shadowRoot)]
    .reduce((n, root) => n + root.querySelectorAll('img').length, 0)), 0);
  // The iframe posted its height and the host sized it.
  await page.waitForFunction(() => window.__heights.some((m) => m.frame === 'f1' && m.height > 80));
  const height = await page.evaluate(() => Number(document.getElementById('frame').height));
  assert.ok(height > 80, `iframe height ${height}`);
  assert.deepEqual(problems, []);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'embed-host');
  await page.close();
});

// Attributes written before the widget took the request's keys (issue 41) keep working, in their
// old units; where a widget carries both spellings, today's wins; a control changes the one used.
test('old attribute names answer as today\'s, and a control writes back the spelling the host used', async () => {
  const { page, problems } = await open(browser, `${server.base}/test-host/widgets.html`, { ready: null });
  await page.waitForFunction(() => customElements.get('kv-cache-explorer'));
  const answer = (attributes) => page.evaluate((list) => new Promise((resolve) => {
    const w = document.createElement('kv-cache-explorer');
    for (const [name, value] of list) w.setAttribute(name, value);
    w.addEventListener('kvscope-result', (e) => resolve({ report: e.detail.result, hash: new URL(w.shadowRoot.querySelector('.source a').href).hash }), { once: true });
    w.addEventListener('kvscope-error', (e) => resolve({ error: e.detail }), { once: true });
    document.body.append(w);
  }), Object.entries(attributes));
  const old = await answer({ view: 'concurrency', 'gpu-memory-gb': '48', 'gpu-bandwidth-tbs': '1', 'weights-gb': '15',
    'gpu-memory-utilization': '0.8', tp: '1', context: '16384', 'shared-prefix': '1024', batch: '4' });
  const today = await answer({ view: 'concurrency', 'gpu-memory-bytes': '48e9', 'gpu-bandwidth-bytes-per-s': '1e12',
    'weights-bytes': '15e9', 'vllm-gpu-memory-utilization': '0.8', 'tensor-parallel': '1', 'context-tokens': '16384',
    'shared-prefix-tokens': '1024', batch: '4' });
  assert.equal(old.error, undefined);
  assert.deepEqual(old.report, today.report);
  assert.equal(old.hash, today.hash, '"Open in kvscope" links in today\'s names');
  const expected = cliPlan({ gpu_memory_bytes: 48e9, gpu_bandwidth_bytes_per_s: 1e12, weights_bytes: 15e9,
    'vllm.gpu_memory_utilization': 0.8, context_tokens: 16384, shared_prefix_tokens: 1024, batch: 4 });
  assert.equal(today.report.max_concurrency, expected.max_concurrency);
  const both = await answer({ view: 'concurrency', context: '4096', 'context-tokens': '16384' });
  assert.equal(both.report.max_model_len, 16384);
  assert.deepEqual((await answer({ 'gpu-memory-gb': '0' })).error,
    { code: 'invalid_value', field: 'gpu-memory-gb', message: 'gpu-memory-gb: must be between 0.001 and 1000000, got "0"' });
  // The context control of a widget written with `context` sets `context`.
  const attributes = await page.evaluate(() => new Promise((resolve) => {
    const w = document.createElement('kv-cache-explorer');
    w.setAttribute('context', '4096');
    w.setAttribute('controls', 'context');
    w.addEventListener('kvscope-result', () => {
      const input = w.shadowRoot.querySelector('input[type=number]');
      input.value = '8192';
      input.dispatchEvent(new Event('change'));
      resolve([...w.attributes].map((a) => `${a.name}=${a.value}`));
    }, { once: true });
    document.body.append(w);
  }));
  assert.deepEqual(attributes, ['context=8192', 'controls=context']);
  assert.deepEqual(problems, []);
  await page.close();
});
