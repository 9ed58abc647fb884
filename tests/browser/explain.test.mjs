// "Explain my log" on the page: a pasted start-up log's figures are the CLI's, "Plan the page from
// this machine" plans the log's deployment with its measured budget (and says so), a log that
// names no model uses the page's, and hostile pastes (binary, 10 MB of noise, mixed engines) get
// one clear line while the page keeps answering.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, siteDir } from '../paths.mjs';
import { cliAnswer, cliReport } from '../support/cli-request.mjs';
import { serve, launch, open, screenshot, cliPlan } from './support.mjs';

const { DEFAULTS, toHash, parseHash } = await import(path.join(siteDir, 'js/state.js'));

let server;
let browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const committedLog = (name) => readFileSync(path.join(repoRoot, 'tests/data/logs', name), 'utf8');

/** Puts text in the log box (without typing 10 MB key by key) and presses Explain. */
async function explain(page, text) {
  await page.evaluate((t) => {
    delete document.body.dataset.explained;
    /** @type {HTMLTextAreaElement} */ (document.getElementById('explain-log')).value = t;
  }, text);
  await page.click('#explain-run');
  await page.waitForFunction(() => document.body.dataset.explained !== undefined);
}

test('a pasted vLLM log: each figure is the CLI\'s, and the page plans from its measured budget', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  const log = committedLog('vllm-v1-qwen3-next-80b-a3b-h200-tp2-262k.log');
  await explain(page, log);
  // The first read also fetched the log reader (the full module), and the status said so.
  assert.equal(await page.textContent('#explain-status'), 'Loading the log reader (the first time only), then reading the log…');
  const expected = cliReport('explain', { log: { name: 'pasted log', text: log } });
  assert.equal(expected.model.id, 'qwen3-next-80b-a3b');
  const rows = await page.$$eval('#explain-table tbody tr', (trs) => trs.map((tr) => [...tr.children].slice(0, 5).map((c) => c.textContent)));
  assert.deepEqual(rows, expected.figures.map((f) => [String(f.line), f.name, `${f.printed} ${f.unit}`,
    `${f.kvscope} ${f.unit}`, { exact: '✓ exact', rounding: '≈ rounding', differs: '✗ differs' }[f.match]]));
  assert.match(await page.textContent('#explain-answer'), /^vLLM 0\.10\.2, Qwen3-Next 80B-A3B: 4 exact, 0 within the printed rounding, 0 different\.$/);
  assert.match(await page.textContent('#explain-inputs'), /44\.59 GiB, taken as measured/);
  await screenshot(page, 'page-explain');
  await page.click('#explain-use');
  await page.waitForURL(/kv_memory_bytes=/);
  const state = parseHash(await page.evaluate(() => location.hash)).state;
  assert.equal(state.model, 'qwen3-next-80b-a3b');
  assert.equal(state.tensor_parallel, 2);
  assert.equal(state.context_tokens, 262144);
  assert.equal(state.kv_memory_bytes, expected.plan_request.kv_memory_bytes);
  assert.match(await page.textContent('#calibrated-text'), /^Calibrated from your log \(vLLM 0\.10\.2 log, \d+ lines\): the KV budget as the engine measured it\.$/);
  // The verdict is the CLI's plan of that state: 973,760 tokens, as the engine printed.
  const plan = cliPlan(state);
  assert.equal(plan.kv_pool_tokens, 973760);
  await page.waitForFunction((n) => document.body.textContent.includes(n), '973,760');
  await page.click('#calibrated-clear');
  await page.waitForFunction(() => !location.hash.includes('kv_memory_bytes'));
  assert.equal(await page.isHidden('#calibrated'), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a log that names no model is explained for the page\'s, and says so', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash({ ...DEFAULTS, model: 'llama-3.1-8b' })}`);
  await explain(page, committedLog('vllm-v0-llama31-8b-rtx3090-20k.log'));
  assert.match(await page.textContent('#explain-result'), /the log does not name it: the page's model \(llama-3\.1-8b\) was used/);
  const concurrency = await page.$eval('#explain-table tbody tr:last-child', (tr) => [...tr.children].map((c) => c.textContent));
  assert.deepEqual(concurrency.slice(0, 5), ['11', 'Maximum concurrency for 20000 tokens per request', '1.56 x', '1.56 x', '✓ exact']);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a pasted launch command is checked on the page\'s card, its fixes are the CLI\'s, and the page plans it', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash({ ...DEFAULTS, gpu: 'h100-sxm-80gb' })}`);
  const launch = 'vllm serve Qwen/Qwen3-32B \\\n  --max-model-len 131072 --port 8000';
  await explain(page, launch);
  assert.equal(await page.evaluate(() => document.body.dataset.explained), 'check');
  const expected = cliAnswer('check', { launch, gpu: 'h100-sxm-80gb' });
  assert.equal(expected.status, 1, 'the CLI exits 1: it will not start');
  assert.equal(await page.textContent('#check-answer'), `Will not start on NVIDIA H100 SXM5 80GB: ${expected.json.fixes.length} changes make it start.`);
  assert.match(await page.textContent('#check-findings'), /User-specified max_model_len \(131072\) is greater than the derived max_model_len/);
  assert.match(await page.textContent('#check-findings'), /the model accepts at most 40,960 tokens/);
  const commands = await page.$$eval('#check-fixes input.command', (cs) => cs.map((c) => /** @type {HTMLInputElement} */ (c).value));
  assert.deepEqual(commands, expected.json.fixes.map((f) => f.launch_command));
  assert.match(await page.textContent('#check-flags'), /--port.*no memory effect/s);
  await page.click('#check-flags summary');
  await screenshot(page, 'page-check');
  await page.click('#check-use');
  await page.waitForURL(/qwen3-32b/);
  const state = parseHash(await page.evaluate(() => location.hash)).state;
  assert.equal(state.model, 'qwen3-32b');
  assert.equal(state.gpu, 'h100-sxm-80gb');
  assert.equal(state.context_tokens, 131072);
  assert.equal(await page.isHidden('#calibrated'), true, 'a command is no calibration');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a log that quotes its command is still explained; a command for a model kvscope lacks uses the page\'s', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html#${toHash({ ...DEFAULTS, model: 'llama-3.1-8b' })}`);
  await explain(page, committedLog('sglang-qwen3-235b-a22b-fp8-tp4-h100.log'));
  assert.match(await page.evaluate(() => document.body.dataset.explained), /^[1-9]\d*$/);
  await explain(page, 'vllm serve my-org/private-finetune --max-model-len 8192');
  assert.equal(await page.evaluate(() => document.body.dataset.explained), 'check');
  assert.match(await page.textContent('#check-result'), /kvscope does not know its model: the page's \(llama-3\.1-8b\) was used/);
  assert.match(await page.textContent('#check-answer'), /^Starts on 24 GB card: max_model_len 8,192, [\d.]+ sequences of it fit\.$/);
  await explain(page, 'hello, world');
  assert.match(await page.textContent('#explain-panel'), /^log: no start-up line of vLLM, SGLang, TensorRT-LLM, llama\.cpp or Ollama was recognised in 1 lines$/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('hostile pastes get one line naming the log, and the page keeps answering', async () => {
  const { page, problems } = await open(browser, `${server.base}/index.html`);
  await explain(page, 'GPU KV cache size: 1\u0000\u0001binary');
  assert.match(await page.textContent('#explain-panel'), /^log: not a text log \(a NUL byte at offset \d+\)$/);
  const status = () => page.evaluate(() => document.getElementById('explain-status').textContent);
  assert.equal(await status(), 'Loading the log reader (the first time only), then reading the log…');
  // 10 MB of coloured noise with truncated engine lines: read within bounds, refused in one line.
  const noise = '\u001b[31mINFO GPU KV cache si\u001b[0m ze\r\n'.repeat(300000);
  await explain(page, noise);
  assert.equal(await status(), 'Reading the log…', 'the reader answered once (a refusal is an answer)');
  assert.match(await page.textContent('#explain-panel'), /^log: no start-up line of vLLM, SGLang, TensorRT-LLM, llama\.cpp or Ollama was recognised in 300000 lines$/);
  // A paste mixing engines is read as the first, and the note names the other.
  const mixed = `${committedLog('vllm-v1-qwen3-next-80b-a3b-h200-tp2-262k.log')}\n${committedLog('sglang-qwq32b-tp4-l4.log')}`;
  await explain(page, mixed);
  assert.match(await page.textContent('#explain-result'), /the log also has lines sglang prints; it was read as vLLM's/);
  // Still answering: a control change re-plans.
  await page.fill('#context', '4096');
  await page.waitForURL(/context_tokens=4096/);
  assert.deepEqual(problems, []);
  await page.close();
});
