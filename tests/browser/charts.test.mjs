// The charts (issue 17, item 3): values under the mouse and the keyboard, binary K/M token axes,
// sequences on a log axis, the card's memory as one stacked bar, and each chart's data as CSV,
// held against `kvscope sweep --json` for the same scenario. Screenshots are saved.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { siteDir } from '../paths.mjs';
import { cliReport } from '../support/cli-request.mjs';
import { serve, launch, open, screenshot, cliPlan, showSweeps } from './support.mjs';

const { DEFAULTS, sweepRequest, toHash } = await import(path.join(siteDir, 'js/state.js'));
const { makeFormat, tokens } = await import(path.join(siteDir, 'js/format.js'));

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

// An H100 at 64K: a few sequences fit at the longest context, hundreds at the shortest.
const H100 = { ...DEFAULTS, gpu: 'h100-sxm-80gb', context_tokens: 65536 };
const url = (state) => `${server.base}/index.html#${toHash(state)}`;

// Runs in the page before its scripts: each canvas keeps the texts of its last draw (uPlot draws
// the axes' labels on the canvas, where the DOM cannot read them).
function recordCanvasTexts() {
  const { clearRect, fillText } = CanvasRenderingContext2D.prototype;
  CanvasRenderingContext2D.prototype.clearRect = function (x, y, w, h) {
    if (w >= this.canvas.width && h >= this.canvas.height) this.canvas.drawnTexts = [];
    return clearRect.call(this, x, y, w, h);
  };
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    (this.canvas.drawnTexts ??= []).push(String(text));
    return fillText.call(this, text, ...rest);
  };
}
const drawnTexts = (page, chart) => page.$eval(`${chart} canvas`, (c) => c.drawnTexts ?? []);
const legendValues = (page, chart) => page.$$eval(`${chart} .u-legend .u-value`, (cells) => cells.map((c) => c.textContent));

test('token axes read 1K … 64K and the sequences axis is logarithmic: the last few sequences stand off the floor', async () => {
  const { page, problems } = await open(browser, url(H100), { init: recordCanvasTexts });
  await showSweeps(page);
  const sweep = cliReport('sweep', sweepRequest(H100));
  const fits = sweep.concurrency_vs_context.points.map((p) => p[1]);
  assert.ok(fits[0] > 100 * fits.at(-1), `a span of decades: ${fits[0]} to ${fits.at(-1)}`);
  const x = await drawnTexts(page, '#chart-concurrency');
  for (const label of ['1K', '4K', '16K', '64K']) assert.ok(x.includes(label), `${label} among ${x}`);
  assert.ok(!x.some((t) => /k$/.test(t)), `no decimal k (1.02k, 65.5k): ${x}`);
  const kv = await drawnTexts(page, '#chart-kv-context');
  for (const label of ['1K', '64K', '0.01', '1', '100']) assert.ok(kv.includes(label), `${label} among ${kv}`);
  // The y labels are powers of two from a few to about a thousand, not 0, 200, 400, …
  const y = x.filter((t) => /^[\d,]+$/.test(t)).map((t) => Number(t.replace(/,/g, '')));
  assert.ok(y.every((v) => Number.isInteger(Math.log2(v))) && Math.min(...y) <= 8 && Math.max(...y) >= 1024, `y labels ${y}`);
  // The cursor at the last point: its dot sits well above the bottom of the plot.
  await page.focus('#chart-concurrency');
  await page.keyboard.press('End');
  const { dotY, height } = await page.$eval('#chart-concurrency', (box) => {
    const over = box.querySelector('.u-over').getBoundingClientRect();
    const dot = box.querySelectorAll('.u-cursor-pt')[0].getBoundingClientRect();
    return { dotY: dot.top + dot.height / 2 - over.top, height: over.height };
  });
  assert.ok(dotY < 0.9 * height, `${fits.at(-1)} sequences at ${dotY.toFixed(0)} px of ${height.toFixed(0)}`);
  assert.deepEqual(problems, []);
  await page.close();
  // Between powers of two a token count keeps one decimal of K.
  assert.deepEqual([512, 1024, 32768, 65536, 131072, 1048576, 31488].map(tokens), ['512', '1K', '32K', '64K', '128K', '1M', '30.8K']);
});

test('values under the mouse and under the keyboard, in the legend and spoken', async () => {
  const { page, problems } = await open(browser, url(H100));
  await showSweeps(page);
  const points = cliReport('sweep', sweepRequest(H100)).concurrency_vs_context.points;
  const said = (i) => `context ${points[i][0].toLocaleString('en-US')} tokens: ${points[i][1]} sequence${points[i][1] === 1 ? '' : 's'}`;
  // At rest the legend shows the last point: max_model_len.
  assert.deepEqual((await legendValues(page, '#chart-concurrency')).slice(0, 2), said(points.length - 1).slice(8).split(': '));
  await page.locator('#chart-concurrency').scrollIntoViewIfNeeded();
  const over = await page.locator('#chart-concurrency .u-over').boundingBox();
  await page.mouse.move(over.x + over.width * 0.3, over.y + over.height / 2);
  const [context, fits] = await legendValues(page, '#chart-concurrency');
  const i = points.findIndex((p) => `${p[0].toLocaleString('en-US')} tokens` === context);
  assert.ok(i > 0 && i < points.length / 2, `hovered ${context}`);
  assert.equal(`context ${context}: ${fits}`, said(i));
  await page.mouse.move(0, 0);
  await page.focus('#chart-concurrency');
  await page.keyboard.press('End');
  assert.equal(await page.textContent('#chart-concurrency-readout'), said(points.length - 1));
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.textContent('#chart-concurrency-readout'), said(points.length - 3));
  assert.equal(await page.getAttribute('#chart-concurrency-readout', 'aria-live'), 'polite');
  assert.deepEqual((await legendValues(page, '#chart-concurrency')).slice(0, 2), said(points.length - 3).slice(8).split(': '));
  await page.keyboard.press('Home');
  assert.equal(await page.textContent('#chart-concurrency-readout'), said(0));
  // Every chart is a keyboard stop with a name of its own.
  const names = await page.$$eval('.chart', (charts) => charts.filter((c) => !c.hidden && c.tabIndex === 0).map((c) => c.getAttribute('aria-label')));
  assert.ok(names.length >= 5, names.join(' | '));
  assert.equal(new Set(names).size, names.length);
  assert.deepEqual(problems, []);
  await page.close();
});

test('decode: tokens/s and step time on charts of their own, both lines drawn, the KV cap marked', async () => {
  const { page, problems } = await open(browser, url(H100), { init: recordCanvasTexts });
  await showSweeps(page);
  const sweep = cliReport('sweep', sweepRequest(H100));
  // Pixels of a chart's canvas in its line's colour (the theme's --series-N).
  const inked = (chart, n) => page.$eval(`${chart} canvas`, (canvas, name) => {
    const probe = document.createElement('canvas').getContext('2d');
    probe.fillStyle = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
    probe.fillRect(0, 0, 1, 1);
    const [r, g, b] = probe.getImageData(0, 0, 1, 1).data;
    const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let count = 0;
    for (let i = 0; i < px.length; i += 4) if (Math.abs(px[i] - r) + Math.abs(px[i + 1] - g) + Math.abs(px[i + 2] - b) < 40) count += 1;
    return count;
  }, `--series-${n}`);
  assert.ok(await inked('#chart-throughput', 3) > 200, 'the tokens/s line');
  assert.ok(await inked('#chart-step', 4) > 200, 'the step time line');
  for (const chart of ['#chart-throughput', '#chart-step']) {  // the longest label that has room
    const texts = await drawnTexts(page, chart);
    assert.ok(texts.some((t) => /cap/.test(t) && t.endsWith(` ${sweep.kv_capped_batch}`)), texts.join(' | '));
  }
  const last = sweep.tokens_per_s_vs_batch.points.at(-1);
  assert.deepEqual(await legendValues(page, '#chart-throughput'), [`${last[0]} sequences`, `${Math.round(last[1])} tokens/s`]);
  const step = sweep.step_time_s_vs_batch.points.at(-1)[1];
  assert.deepEqual(await legendValues(page, '#chart-step'), [`${last[0]} sequences`, `${(step * 1e3).toFixed(1)} ms`]);
  assert.deepEqual(problems, []);
  await page.close();
});

/** The text of the CSV file the button named `name` downloads. */
async function downloaded(page, name) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name, exact: true }).click()]);
  return { name: file.suggestedFilename(), text: await readFile(await file.path(), 'utf8') };
}
const csvOf = (header, rows) => [header, ...rows.map((r) => r.join(','))].join('\n') + '\n';

test('each chart downloads its exact data as CSV, a header with units first', async () => {
  const { page, problems } = await open(browser, url(H100));
  await showSweeps(page);
  const sweep = cliReport('sweep', sweepRequest(H100));
  const concurrency = await downloaded(page, 'Download the concurrency chart\'s data as CSV');
  assert.equal(concurrency.name, 'kvscope-concurrency.csv');
  assert.equal(concurrency.text, csvOf('context (tokens),sequences that fit (sequences)', sweep.concurrency_vs_context.points));
  const kv = await downloaded(page, 'Download the KV per sequence chart\'s data as CSV');
  const pool = cliPlan(H100).kv_pool_bytes;
  const dtypes = sweep.kv_bytes_vs_context;
  assert.equal(kv.text, csvOf(`context (tokens),${dtypes.map((d) => `${d.name} (bytes)`).join(',')},KV pool (bytes)`,
    dtypes[0].points.map(([ctx], i) => [ctx, ...dtypes.map((d) => d.points[i][1]), pool])));
  const step = await downloaded(page, 'Download the step time chart\'s data as CSV');
  assert.equal(step.text, csvOf('batch (sequences),step time (s)', sweep.step_time_s_vs_batch.points));
  const memory = await downloaded(page, 'Download the memory chart\'s data as CSV');
  assert.equal(memory.text, csvOf('part,per GPU (bytes)',
    Object.entries(sweep.memory_breakdown_per_gpu).map(([k, bytes]) => [k.replace(/_bytes$/, ''), bytes])));
  await page.click('#what-if-run');
  await page.waitForSelector('#chart-what-if canvas');
  const names = await page.$$eval('button.chart-csv', (bs) => bs.map((b) => b.getAttribute('aria-label')));
  assert.equal(names.length, 6, names.join(' | '));  // memory, concurrency, KV, tokens/s, step time, what-if
  assert.equal(new Set(names).size, names.length, names.join(' | '));
  assert.match((await downloaded(page, 'Download the what-if chart\'s data as CSV')).text, /^lever,sequences gained \(sequences\)\n/);
  assert.deepEqual(problems, []);
  await page.close();
});

/** The bar's parts, their visible labels, the marks and the box, in px. */
const memoryLayout = (page) => page.$eval('#chart-memory', (box) => {
  const rect = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width }; };
  return {
    bar: rect(box.querySelector('.memory-bar')),
    parts: [...box.querySelectorAll('.memory-part')].map((p) => {
      const label = p.querySelector('.memory-label');
      const shown = getComputedStyle(label).display !== 'none';
      return { key: p.className.match(/part-(\S+)/)[1], ...rect(p), label: shown ? label.textContent : null,
        labelBox: shown ? rect(label) : null, clipped: shown && label.scrollWidth > label.clientWidth };
    }),
    marks: [...box.querySelectorAll('.memory-mark')].map(rect),
    markLabels: [...box.querySelectorAll('.memory-mark-label')].map((l) => ({ text: l.textContent, ...rect(l) })),
    box: rect(box),
  };
});

test('the card\'s memory is one stacked bar: labelled parts, the KV pool\'s cap marked, nothing overlaps on a phone', async () => {
  for (const width of [1280, 390]) {
    const { page, problems } = await open(browser, url(H100), { width, height: 900 });
    await showSweeps(page, '#chart-memory');
    const sweep = cliReport('sweep', sweepRequest(H100));
    const fmt = makeFormat(H100.units);
    const m = await memoryLayout(page);
    const parts = Object.entries(sweep.memory_breakdown_per_gpu).filter(([, b]) => b > 0);
    assert.deepEqual(m.parts.map((p) => p.key), parts.map(([k]) => k));
    const total = m.parts.reduce((s, p) => s + p.width, 0);
    assert.ok(Math.abs(total - (m.bar.width - 2)) <= 1, `parts ${total} px in a bar of ${m.bar.width} px`);
    const card = parts.reduce((s, [, b]) => s + b, 0);
    for (const [i, [, bytes]] of parts.entries()) assert.ok(Math.abs(m.parts[i].width - (bytes / card) * (m.bar.width - 2)) <= 1, m.parts[i].key);
    const kv = m.parts.find((p) => p.key === 'kv_pool_bytes');
    assert.equal(kv.label, `KV pool${fmt.bytes(sweep.memory_breakdown_per_gpu.kv_pool_bytes)}`);
    const shown = m.parts.filter((p) => p.label);
    for (const p of shown) {
      assert.ok(!p.clipped && p.labelBox.left >= p.left - 0.5 && p.labelBox.right <= p.right + 0.5, `${p.key}'s label inside its part`);
    }
    for (let i = 1; i < shown.length; i += 1) assert.ok(shown[i].labelBox.left >= shown[i - 1].labelBox.right, 'labels do not overlap');
    // The cap: where the engine's share ends, the held-back part begins.
    const held = m.parts.find((p) => p.key === 'not_given_to_the_engine_bytes');
    assert.equal(m.marks.length, 1);
    assert.ok(Math.abs((m.marks[0].left + m.marks[0].right) / 2 - held.left) <= 1.5, `cap at ${m.marks[0].left}, held back from ${held.left}`);
    const cap = card - sweep.memory_breakdown_per_gpu.not_given_to_the_engine_bytes - (sweep.memory_breakdown_per_gpu.free_bytes ?? 0);
    assert.match(m.markLabels[0].text, new RegExp(`^KV pool's cap: the engine's share, ${fmt.bytes(cap).replace('.', '\\.')} \\(`));
    assert.ok(m.markLabels[0].top >= m.bar.bottom && m.markLabels[0].left >= m.box.left && m.markLabels[0].right <= m.box.right + 0.5);
    // Narrow parts are named by the table below, in the same colours.
    const swatches = await page.$$eval('#memory-table .swatch', (els) => els.map((e) => getComputedStyle(e).backgroundColor));
    const fills = await page.$$eval('#chart-memory .memory-part', (els) => els.map((e) => getComputedStyle(e).backgroundColor));
    for (const fill of fills) assert.ok(swatches.includes(fill), fill);
    // The keyboard reads each part.
    await page.focus('#chart-memory');
    await page.keyboard.press('Home');
    const weights = sweep.memory_breakdown_per_gpu.weights_bytes;
    assert.equal(await page.textContent('#chart-memory-readout'), `weights: ${fmt.bytes(weights)}, ${+(100 * weights / card).toFixed(1)}% of the card`);
    assert.equal(await page.locator('#chart-memory .memory-part.current').count(), 1);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `no horizontal scrolling (${overflow}px)`);
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test('screenshots: desktop, phone and dark', async () => {
  for (const [name, hash, width, height] of [['charts-desktop', toHash(H100), 1280, 900], ['charts-phone', toHash(H100), 390, 844],
    ['charts-dark', `${toHash(H100)}&theme=dark`, 1280, 900], ['charts-default', '', 1280, 900]]) {
    const { page, problems } = await open(browser, `${server.base}/index.html#${hash}`, { width, height });
    await screenshot(page, name);
    assert.deepEqual(problems, [], name);
    await page.close();
  }
});

test('out of view, a change runs no sweep; scrolled to, the card and the charts show the answer of the current inputs', async () => {
  const { page, problems } = await open(browser, url(H100));
  await page.waitForSelector('body[data-ready]', { state: 'attached' });
  const sweeps = () => page.evaluate(() => document.body.dataset.sweeps);
  assert.equal(await sweeps(), 'pending', 'the card and the charts are below the fold of a 1280 x 900 window');
  assert.equal(await page.locator('#memory-panel').isVisible(), false, 'an earlier answer is never shown');
  const fp8 = { ...H100, weight_dtype: 'fp8' };
  await page.selectOption('#weight-dtype', 'fp8');
  await page.waitForURL(/weight_dtype=fp8/);
  assert.equal(await sweeps(), 'pending');
  await showSweeps(page, '#memory-panel');
  const weights = (state) => cliReport('sweep', sweepRequest(state)).memory_breakdown_per_gpu.weights_bytes;
  assert.ok(weights(fp8) < weights(H100));
  assert.equal(Number(await page.getAttribute('#memory-panel td[data-key="weights_bytes"]', 'data-value')), weights(fp8));
  assert.equal(await page.locator('#memory-panel').isVisible(), true);
  // In view, each change draws its own sweep at once.
  await page.selectOption('#weight-dtype', 'auto');
  assert.equal(await sweeps(), 'drawn');
  assert.equal(Number(await page.getAttribute('#memory-panel td[data-key="weights_bytes"]', 'data-value')), weights(H100));
  assert.deepEqual(problems, []);
  await page.close();
});

test('the page answers before the chart library loads, and says so when it cannot load', async () => {
  const scripts = [];
  const { page } = await open(browser, `${server.base}/index.html`, { before: async (p) => {
    p.on('request', (r) => { if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname); });
    await p.route('**/vendor/uplot/uPlot.iife.min.js', (route) => route.abort());
  } });
  // One bundle for the page's own scripts; neither the charts' code nor their library while no
  // chart is near the viewport.
  assert.deepEqual(scripts.filter((s) => !s.includes('/wasm/')).slice(0, 1), ['/js/app.js']);
  assert.match(await page.textContent('#verdict-headline'), /^vLLM will not start: Llama 3\.1 8B/);
  await page.waitForSelector('body[data-ready]', { state: 'attached' });
  assert.deepEqual(scripts.filter((s) => /chart-plots|uPlot/.test(s)), []);
  // The library is asked for with the first chart, near the viewport: the memory table is drawn,
  // the charts cannot be, and the page says why.
  await showSweeps(page);
  assert.deepEqual(scripts.filter((s) => /chart-plots|uPlot/.test(s)), ['/js/chart-plots.js', '/vendor/uplot/uPlot.iife.min.js']);
  assert.match(await page.textContent('#page-error'), /^The charts cannot be drawn: the chart library \(.*uPlot\.iife\.min\.js\) did not load\.$/);
  assert.ok(await page.locator('td[data-key="weights_bytes"]').count() > 0);
  assert.equal(await page.locator('.chart canvas').count(), 0);
  await page.close();
});

test('charts whose code does not load: the page says so, keeps its tables, and tries again on the next change', async () => {
  let refuse = true;
  const { page, problems } = await open(browser, `${server.base}/index.html`, { before: (p) =>
    p.route('**/js/chart-plots.js', (route) => (refuse ? route.abort() : route.fallback())) });
  await showSweeps(page);
  assert.equal(await page.getAttribute('body', 'data-charts'), 'failed');
  assert.match(await page.textContent('#page-error'), /^The charts cannot be drawn: the charts' code \(.*\/js\/chart-plots\.js\) did not load\.$/);
  assert.ok(await page.locator('#memory-panel td[data-key="weights_bytes"]').count() > 0);
  refuse = false;
  await page.selectOption('#kv-dtype', 'fp8');
  await page.waitForSelector('body[data-charts="loaded"]', { state: 'attached' });
  await page.waitForSelector('#chart-concurrency canvas');
  assert.equal(await page.locator('#page-error').isVisible(), false);
  assert.deepEqual(problems.filter((p) => !p.includes('net::ERR_FAILED')), []);
  await page.close();
});
