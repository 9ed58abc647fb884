#!/usr/bin/env node
// Browser benchmark of the page (issue 14's speed and size targets), in Debian's headless Chromium:
//   first result after navigation (cold profile), re-render time per control change (and, from a
//   trace, its style and layout work), the bytes the page loads (gzip -9), and the WASM / native
//   ratio on the same 1,000-point sweep command.
// Run after scripts/build-native.sh and scripts/build-wasm.sh:  node scripts/bench-page.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../tests/paths.mjs';
import { serve, launch } from '../tests/browser/support.mjs';

const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const median = (xs) => quantile(xs, 0.5);
const round = (x, d = 2) => Number(x.toFixed(d));

const server = await serve();
const url = `${server.base}/index.html`;

// 1. First result: a fresh browser profile each time (nothing cached), median of 5; with where its
// time went (app.js's performance marks) and, for scale, the same browser's blank page.
/**
 * Opens `pageUrl` in a fresh browser and returns its data-ready-ms, after `also(page, responses)`.
 * @param {string} pageUrl
 * @param {(page: any, responses: any[], ready: number) => Promise<void>} [also]
 */
async function freshLoad(pageUrl, also = async () => {}) {
  const browser = await launch();
  const page = await browser.newPage();
  const responses = [];
  page.on('response', (r) => responses.push(r));
  await page.goto(pageUrl);
  await page.waitForSelector('body[data-ready]', { state: 'attached', timeout: 20000 });
  const ready = Number(await page.getAttribute('body', 'data-ready-ms'));
  await also(page, responses, ready);
  await browser.close();
  return ready;
}

const firstResult = [];
const phases = [];
let bytes = [];
for (let i = 0; i < 5; i++) {
  firstResult.push(await freshLoad(url, async (page, responses, ready) => {
    const at = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])));
    phases.push({ to_main: at['kvscope:main'], wiring: at['kvscope:wired'] - at['kvscope:main'], module: at['kvscope:module'] - at['kvscope:wired'],
      catalogues: at['kvscope:catalogues'] - at['kvscope:module'], plan_and_render: ready - at['kvscope:catalogues'] });
    if (i > 0) return;
    bytes = await Promise.all(responses.map(async (r) => {
      const body = await r.body();
      return { file: new URL(r.url()).pathname, raw: body.length, gzip: gzipSync(body, { level: 9 }).length };
    }));
  }));
}
const blankPage = [];
for (let i = 0; i < 5; i++) blankPage.push(await freshLoad(`${server.base}/test-host/blank.html`));

// 1b. The widget (issue 5): what a host page loads for the first widget beyond the shared module
// (the .wasm and its glue), from the worked article with its seven widgets.
const widgetBytes = await (async () => {
  const browser = await launch();
  const page = await browser.newPage();
  const responses = [];
  page.on('response', (r) => responses.push(r));
  await page.goto(`${server.base}/examples/why-kv-cache-limits-concurrency.html`);
  await page.waitForFunction(() => document.querySelector('kv-cache-explorer')?.shadowRoot.querySelector('.answer, .error'));
  const files = await Promise.all(responses.map(async (r) => {
    const body = await r.body();
    return { file: new URL(r.url()).pathname, gzip: gzipSync(body, { level: 9 }).length };
  }));
  await browser.close();
  const js = files.filter((f) => /\.m?js$/.test(f.file));
  const module = files.filter((f) => f.file.includes('/js/wasm/'));
  return { widget_js: js.filter((f) => !f.file.includes('/js/wasm/')).reduce((a, b) => a + b.gzip, 0),
    shared_module: module.reduce((a, b) => a + b.gzip, 0), wasm_fetches: files.filter((f) => f.file.endsWith('.wasm')).length };
})();

// 2. Control changes: script + DOM + chart updates, then a forced style/layout, per change; first
// with the answer in view (as the page opens: the card's memory and the charts, out of view, wait),
// then with the charts in view (each change also runs the sweep and redraws them).
const browser = await launch();
const page = await browser.newPage();
await page.goto(url);
await page.waitForSelector('body[data-ready]', { state: 'attached' });
const timeChanges = (on = page) => on.evaluate(async () => {
  const fire = (id, value, event) => { const el = document.getElementById(id); el.value = value; el.dispatchEvent(new Event(event)); };
  const steps = [];
  const gpus = ['custom', 'h100-sxm-80gb', 'rtx-4090', 'a100-sxm-80gb'];
  const dtypes = ['auto', 'fp8', 'q8_0', 'int4'];
  for (let i = 0; i < 80; i++) {
    const kind = ['context-slider', 'kv-dtype', 'gpu', 'engine'][i % 4];
    const value = kind === 'context-slider' ? String(10 + (i % 11)) : kind === 'kv-dtype' ? dtypes[i % 4]
      : kind === 'gpu' ? gpus[(i >> 2) % 4] : ['vllm', 'sglang', 'tensorrt-llm', 'llama.cpp', 'plain'][(i >> 2) % 5];
    const t0 = performance.now();
    fire(kind, value, kind === 'context-slider' ? 'input' : 'change');
    const t1 = performance.now();
    await null;  // the charts redraw in a microtask queued by setData
    document.body.getBoundingClientRect();  // forces style and layout of what changed
    const t2 = performance.now();
    steps.push({ kind, script: t1 - t0, layout: t2 - t0 });
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  }
  return steps.slice(8);  // the first changes create the charts
});
const changes = await timeChanges();

// The median of a Google Benchmark of the native core (its label is the request it ran).
const benchBin = path.join(repoRoot, 'build/native/native-bench/kvscope_bench');
function nativeMedian(filter) {
  const run = JSON.parse(execFileSync(benchBin, [`--benchmark_filter=${filter}`, '--benchmark_repetitions=5',
    '--benchmark_report_aggregates_only=true', '--benchmark_format=json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  return run.benchmarks.find((b) => b.aggregate_name === 'median');
}
// What the page fetches after its first load, the first time it solves: the full module and the
// views of its answers (solver.js).
const lazyResponses = [];
page.on('response', (r) => { if (r.ok() && /\/js\/(wasm\/kvscope_full_module\.|full-views\.js)/.test(r.url())) lazyResponses.push(r); });
// Milliseconds per call of the module's `command` on one request's JSON text, in the page (solve:
// in the full module, loaded as the page loads it): `runs` samples of `batch` calls each, since the
// page's performance.now() is coarsened to 0.1 ms, a tenth of a sweep.
const timeInPage = (command, text, runs, batch = 1) => page.evaluate(async ([c, t, n, k]) => {
  const { loadKvscope } = await import('./js/kvscope-client.js');
  const kv = await loadKvscope({ full: c === 'solve' });
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    for (let j = 0; j < k; j++) kv.module[c](t);
    times.push((performance.now() - t0) / k);
  }
  return times;
}, [command, text, runs, batch]);

// 3. WASM vs native on the same request: the label of BM_SweepRequest1000 is the request.
const sweepNative = nativeMedian('BM_SweepRequest1000');
const nativeMs = sweepNative.real_time;  // ms (the benchmark's unit)
// The first 400 calls warm up: the page itself has run no sweep while the charts were out of view.
const wasmTimes = (await timeInPage('sweep', sweepNative.label, 60, 20)).slice(20);
// 4. The solver over the whole catalogue (issue 15: well under 100 ms in WASM): the first call
// (code not yet optimized by the engine, what a user's first click meets) and the median after.
const solveNativeMedian = nativeMedian('BM_SolveCatalogue');
const solveTimes = await timeInPage('solve', solveNativeMedian.label, 12);
// Last, as it grows the page's heap for the timings above: the changes with the charts in view.
await page.locator('#chart-concurrency').scrollIntoViewIfNeeded();
await page.waitForSelector('body[data-sweeps="drawn"][data-charts="loaded"]', { state: 'attached' });
const changesChartsInView = await timeChanges();
// As loadFullViews does (page.js); a site staged before e1c52a8 has no such file.
await page.evaluate(() => import('./js/full-views.js').then(() => true, () => false));
// Where the changes' time goes: the same 80 changes in a page of their own under a Chromium trace
// (tracing slows them: these are not the timings above), the browser's style recalculation and
// layout, and each change's event (its script and the layouts it forces), per change.
const changeWork = await (async () => {
  const traced = await browser.newPage();
  await traced.goto(url);
  await traced.waitForSelector('body[data-ready]', { state: 'attached' });
  const cdp = await traced.context().newCDPSession(traced);
  const events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', { categories: 'devtools.timeline', transferMode: 'ReportEvents' });
  await timeChanges(traced);
  await cdp.send('Tracing.end');
  await done;
  await traced.close();
  const perChange = (name) => round(events.filter((e) => e.name === name && e.ph === 'X').reduce((a, e) => a + e.dur, 0) / 1000 / 80);
  return { style_ms: perChange('UpdateLayoutTree'), layout_ms: perChange('Layout'), event_ms: perChange('EventDispatch') };
})();
const lazyBytes = Object.fromEntries(await Promise.all(lazyResponses.map(async (r) =>
  [new URL(r.url()).pathname, gzipSync(await r.body(), { level: 9 }).length])));
await browser.close();
await server.close();

const chromium = execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).trim();
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? os.cpus()[0]?.model;
const changeFigures = (steps) => ({
  script_median: round(median(steps.map((c) => c.script))), script_p95: round(quantile(steps.map((c) => c.script), 0.95)),
  with_layout_median: round(median(steps.map((c) => c.layout))), with_layout_p95: round(quantile(steps.map((c) => c.layout), 0.95)),
  changes: steps.length,
  // Incl. layout, per control: a slider step redraws what a menu's change also rebuilds.
  by_control: Object.fromEntries([...new Set(steps.map((c) => c.kind))].map((kind) => {
    const layout = steps.filter((c) => c.kind === kind).map((c) => c.layout);
    return [kind, { median: round(median(layout)), p95: round(quantile(layout, 0.95)) }];
  })),
});
const byControl = (figures) => Object.entries(figures.by_control).map(([k, v]) => `${k} ${v.median} / ${v.p95}`).join(', ');
const loaded = bytes.filter((b) => /\.(js|mjs|wasm)$/.test(b.file));
const result = {
  machine: `${cpu}, ${os.cpus().length} cores, ${chromium}`,
  date: new Date().toISOString(),
  command: 'node scripts/bench-page.mjs',
  commit,
  first_result_ms: { median: round(median(firstResult), 1), max: round(Math.max(...firstResult), 1), runs: firstResult.length },
  // Medians of each phase over the same loads (they need not add up to the median above): until
  // app.js's main() runs; its wiring of the controls; the module's fetch, compilation and
  // instantiation left after that; the catalogue calls; the first plan and render. Beside them, a
  // blank page's module script in the same browser.
  first_result_phases_ms: Object.fromEntries(Object.keys(phases[0]).map((k) => [k, round(median(phases.map((p) => p[k])), 1)])),
  blank_page_script_ms: { median: round(median(blankPage), 1), runs: blankPage.length },
  control_change_ms: changeFigures(changes),
  control_change_charts_in_view_ms: changeFigures(changesChartsInView),
  control_change_traced_ms_per_change: changeWork,
  bytes_gzip: { wasm_and_js: loaded.reduce((a, b) => a + b.gzip, 0), everything: bytes.reduce((a, b) => a + b.gzip, 0),
    files: Object.fromEntries(bytes.map((b) => [b.file, b.gzip])) },
  first_solve_bytes_gzip: { total: Object.values(lazyBytes).reduce((a, b) => a + b, 0), files: lazyBytes },
  widget_bytes_gzip: widgetBytes,
  sweep_1000: { request: sweepNative.label, wasm_ms_median: round(median(wasmTimes), 3), native_ms_median: round(nativeMs, 3), ratio: round(median(wasmTimes) / nativeMs) },
  solve_catalogue: { request: solveNativeMedian.label, wasm_ms_first: round(solveTimes[0]),
    wasm_ms_median: round(median(solveTimes.slice(2))), native_ms_median: round(solveNativeMedian.real_time) },
};
console.log(JSON.stringify(result, null, 2));
// Issue 14's targets.
const wasmGzip = result.bytes_gzip.files['/js/wasm/kvscope_module.wasm'] ?? 0;
console.log(`\nfirst result ${result.first_result_ms.median} ms median after navigation (target <= 500)`);
const ph = result.first_result_phases_ms;
console.log(`  phases (medians): main() at ${ph.to_main} ms, wiring ${ph.wiring}, module ${ph.module}, catalogues ${ph.catalogues}, plan and render ${ph.plan_and_render}; a blank page's script at ${result.blank_page_script_ms.median} ms`);
console.log(`control change ${result.control_change_ms.with_layout_median} ms median, ${result.control_change_ms.with_layout_p95} ms p95 incl. layout (target <= 16 at p95)`);
console.log(`  by control (ms median / p95): ${byControl(result.control_change_ms)}`);
console.log(`  traced (ms per change): its event ${changeWork.event_ms}; style ${changeWork.style_ms} and layout ${changeWork.layout_ms}, in the event or after it`);
console.log(`control change with the charts in view ${result.control_change_charts_in_view_ms.with_layout_median} ms median, ${result.control_change_charts_in_view_ms.with_layout_p95} ms p95`);
console.log(`  by control (ms median / p95): ${byControl(result.control_change_charts_in_view_ms)}`);
console.log(`page loads ${(result.bytes_gzip.everything / 1000).toFixed(1)} kB gzipped in all (target <= 200), the module ${(wasmGzip / 1000).toFixed(1)} kB (target <= 150)`);
console.log(`first solve fetches the full module and its views: ${(result.first_solve_bytes_gzip.total / 1000).toFixed(1)} kB gzipped (not part of the first load)`);
console.log(`widget: ${(widgetBytes.widget_js / 1000).toFixed(1)} kB of JS gzipped beyond the shared module (${(widgetBytes.shared_module / 1000).toFixed(1)} kB, fetched ${widgetBytes.wasm_fetches}x for 7 widgets)`);
console.log(`1,000-point sweep: WASM ${result.sweep_1000.wasm_ms_median} ms vs native ${result.sweep_1000.native_ms_median} ms = ${result.sweep_1000.ratio}x (target <= 1.5)`);
console.log(`solve over the catalogue: WASM ${result.solve_catalogue.wasm_ms_first} ms first, ${result.solve_catalogue.wasm_ms_median} ms median after; native ${result.solve_catalogue.native_ms_median} ms (issue 15: well under 100 ms in WASM)`);
