// "Which GPUs" on the page: the solver's answer for the page's target is the CLI's, each row
// opens its scenario (which then meets the target), prices re-rank it, the command is one click
// away, a permalink restores it, and the widget shows it (view="solve").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { siteDir } from '../paths.mjs';
import { cliReport } from '../support/cli-request.mjs';
import { serve, launch, open, screenshot, cliPlan } from './support.mjs';

const { DEFAULTS, toHash, planRequest } = await import(path.join(siteDir, 'js/state.js'));
const { solveRequest } = await import(path.join(siteDir, 'js/solve-request.js'));

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

// The question a user brings: Qwen3-32B, 20 users at 32K, vLLM, on the cards they can rent.
const TARGET = { ...DEFAULTS, model: 'qwen3-32b', gpu: 'h100-sxm-80gb', context_tokens: 32768, batch: 20,
  solve_gpus: 'h100-sxm-80gb,a100-sxm-80gb,l40s' };

const FULL_MODULE = '**/js/wasm/kvscope_full_module.*';

test('the first load leaves the solver and its views out; the first solve fetches them and says so meanwhile', async () => {
  const fetched = [];
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(TARGET)}`, {
    before: async (p) => {
      p.on('request', (r) => { if (/\/js\/(wasm\/|full-views)/.test(r.url())) fetched.push(new URL(r.url()).pathname); });
      await p.route(FULL_MODULE, async (route) => { await held; await route.continue(); });
    },
  });
  await page.waitForLoadState('networkidle');  // nothing fetched at idle either
  assert.deepEqual(fetched.sort(), ['/js/wasm/kvscope_module.mjs', '/js/wasm/kvscope_module.wasm']);
  await page.click('#solve-run');
  await page.waitForSelector('#solve-status:has-text("Loading the solver…")');
  release();
  await page.waitForSelector('#solve-table');
  assert.equal(await page.isHidden('#solve-status'), true);
  assert.ok(fetched.includes('/js/wasm/kvscope_full_module.wasm'), fetched.join());
  assert.ok(fetched.includes('/js/full-views.js'), fetched.join());
  assert.deepEqual(problems, []);
  await page.close();
});

test('views that do not load are one line in the panel, and the next click tries again', async () => {
  const VIEWS = '**/js/full-views.js';
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(TARGET)}`, {
    before: (p) => p.route(VIEWS, (route) => route.abort('failed')),
  });
  await page.click('#solve-run');
  await page.waitForSelector('#solve-panel .error-text');
  const message = await page.textContent('#solve-panel .error-text');
  assert.match(message, /^The solver did not load: the page's code \(.*\/js\/full-views\.js\) did not load$/);
  assert.deepEqual(problems.filter((p) => !/Failed to load resource/.test(p)), [], 'no uncaught error');
  await page.unroute(VIEWS);
  await page.click('#solve-run');
  await page.waitForSelector('#solve-table');
  await page.close();
});

test('a solver that does not load is one line in the panel, and the next click tries again', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(TARGET)}`, {
    before: (p) => p.route(FULL_MODULE, (route) => route.abort('failed')),
  });
  await page.click('#solve-run');
  await page.waitForSelector('#solve-panel .error-text');
  const message = await page.textContent('#solve-panel .error-text');
  assert.match(message, /^The solver did not load: /);
  assert.ok(!message.includes('\n'), 'one line');
  assert.equal(await page.isHidden('#solve-status'), true);
  assert.deepEqual(problems.filter((p) => !/Failed to load resource/.test(p)), [], 'no uncaught error');
  await page.unroute(FULL_MODULE);
  await page.click('#solve-run');
  await page.waitForSelector('#solve-table');
  await page.close();
});

test('the answer is the CLI\'s, and opening its first row plans a scenario that meets the target', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash(TARGET)}`);
  assert.match(await page.textContent('#solve-target'), /20 sequences \(Batch\) of 32,768 tokens \(Context\) at once, under vLLM/);
  await page.click('#solve-run');
  await page.waitForSelector('#solve-table');
  await page.waitForURL(/solve=1/);
  const expected = cliReport('solve', solveRequest(TARGET));
  assert.equal(expected.met, true);
  const best = expected.options[0];
  const rows = await page.$$eval('#solve-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.gpu, Number(tr.dataset.gpus)]));
  assert.deepEqual(rows, expected.options.filter((o) => o.meets_target).slice(0, 10).map((o) => [o.gpu, o.gpus]));
  assert.match(await page.textContent('#solve-answer'), new RegExp(`^${best.gpus} × ${best.gpu_name.replace(/[()]/g, '.')} at \\$`));
  await screenshot(page, 'page-solve');
  await page.click('#solve-table tbody tr:first-child button.open');
  await page.waitForURL(new RegExp(`gpu=${best.gpu}`));
  const opened = await page.evaluate(() => location.hash);
  assert.match(opened, new RegExp(`kv_dtype=${best.kv_dtype}`));
  // The scenario as the page now plans it: it starts and holds the 20 sequences.
  const { parseHash } = await import(path.join(siteDir, 'js/state.js'));
  const plan = cliPlan(parseHash(opened).state);
  assert.equal(plan.starts, true);
  assert.equal(plan.target.met, true, JSON.stringify(plan.target));
  assert.equal(plan.launch_command, best.command);
  assert.equal(await page.getAttribute('.verdict', 'data-starts'), 'true');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'verdict');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a typed price re-ranks the layouts, and a permalink restores the answer', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash({ ...TARGET, solve: 1 })}`);
  await page.waitForSelector('#solve-table');  // solve=1: answered as the page opens
  await page.click('#prices-details summary');
  await page.waitForSelector('#prices-table');
  assert.equal(await page.inputValue('#price-a100-sxm-80gb'), '1.79');  // the cited list price
  assert.equal(await page.inputValue('#price-l40s'), '');  // none cited: asked for
  await page.fill('#price-l40s', '0.5');
  await page.dispatchEvent('#price-l40s', 'change');
  await page.waitForURL(/prices_usd_per_hour=l40s%3A0\.5/);
  await page.waitForFunction(() => document.querySelector('#solve-table tbody tr')?.dataset.gpu === 'l40s');
  const expected = cliReport('solve', solveRequest({ ...TARGET, prices_usd_per_hour: 'l40s:0.5' }));
  assert.equal(expected.options[0].gpu, 'l40s');
  assert.equal(await page.getAttribute('#solve-table tbody tr:first-child', 'data-gpus'), String(expected.options[0].gpus));
  assert.deepEqual(problems, []);
  await page.close();
});

test('the launch command is one click away, and a target no GPU meets says why', async () => {
  const context = browser;
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const { page, problems } = await open(context, `${server.base}/index.html#${toHash({ ...TARGET, solve: 1 })}`);
  await page.waitForSelector('#solve-table');
  await page.click('#solve-table tbody tr:first-child button.copy-command');
  const expected = cliReport('solve', solveRequest(TARGET));
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), expected.options[0].command);
  await page.fill('#max-gpus', '1');
  await page.waitForURL(/max_gpus=1/);
  await page.waitForSelector('#solve-answer.bad');
  assert.match(await page.textContent('#solve-answer'), /^No layout of at most 1 GPUs holds 20 sequences/);
  assert.match(await page.textContent('#solve-missed'), /max_gpus — its weights and 20 sequences' caches need at least/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the widget answers view="solve" with the same ranking', async () => {
  const { page, problems } = await open(browser, `${server.base}/test-host/widget-solve.html`, { ready: null });
  await page.waitForFunction(() => document.querySelector('kv-cache-explorer')?.shadowRoot?.querySelector('#solve-table'));
  const rows = await page.evaluate(() => [...document.querySelector('kv-cache-explorer').shadowRoot
    .querySelectorAll('#solve-table tbody tr')].map((tr) => tr.dataset.gpu));
  const expected = cliReport('solve', solveRequest({ ...DEFAULTS, model: 'qwen3-8b', gpu: 'l4', context_tokens: 16384, batch: 8,
    solve_gpus: 'l4,a10g,h100-sxm-80gb' }));
  assert.deepEqual(rows, expected.options.filter((o) => o.meets_target).slice(0, 5).map((o) => o.gpu));
  assert.deepEqual(problems, []);
  await page.close();
});

// planRequest is what the page's other panels send; the solver's request keeps its model and knobs.
test('the solve request keeps the plan request\'s model, engine and knobs', () => {
  const s = { ...TARGET, engine: 'sglang', 'sglang.mem_fraction_static': 0.8, set: 'num_key_value_heads=4' };
  const plan = planRequest(s);
  const solve = solveRequest(s);
  assert.equal(solve.model, plan.model);
  assert.deepEqual(solve.sglang, plan.sglang);
  assert.deepEqual(solve.set, plan.set);
  assert.equal(solve.concurrency, 20);
  assert.deepEqual(solve.gpu, ['h100-sxm-80gb', 'a100-sxm-80gb', 'l40s']);
});
