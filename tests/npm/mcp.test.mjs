// kvscope-mcp as an MCP client meets it: the packed package installed into an empty folder
// (installed.mjs), its bin started over stdio by the official SDK's client, its tools listed and
// called. Each tool's report is the native CLI's --json for the same request; its input schema is
// the core's request schema, which every committed golden request satisfies.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Ajv2020 from 'ajv/dist/2020.js';
import { repoRoot, cliPath } from '../paths.mjs';
import { installPackage } from './installed.mjs';

const folder = installPackage();
const client = new Client({ name: 'kvscope-test', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: path.join(folder, 'node_modules/.bin/kvscope-mcp'), stderr: 'pipe' }));
after(() => client.close());

const nativeJson = (args) => {
  try {
    return JSON.parse(execFileSync(cliPath, [...args, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 }));
  } catch (e) {
    return JSON.parse(e.stdout);  // exit 1 (will not start) still prints the report
  }
};

test('the server lists the seven tools, read-only, with the core request schemas as inputs', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['check', 'estimate', 'explain', 'gpus', 'models', 'plan', 'solve']);
  for (const t of tools) {
    assert.equal(t.annotations.readOnlyHint, true, t.name);
    assert.equal(t.annotations.destructiveHint, false, t.name);
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.ok(t.description.length > 40, t.name);
  }
  const plan = tools.find((t) => t.name === 'plan').inputSchema;
  assert.equal(plan.properties.context_tokens.type, 'integer');
  assert.equal(plan.properties.vllm.properties.gpu_memory_utilization.type, 'number');
  assert.match(plan.properties.max_model_len.description, /--max-model-len/);
  assert.equal(plan.properties.command, undefined, 'the tool is the command');
  assert.deepEqual(tools.find((t) => t.name === 'check').inputSchema.required, ['launch']);
});

test('plan answers with the native report and one line that says it', async () => {
  const r = await client.callTool({ name: 'plan', arguments: { model: 'llama-3.1-8b', gpu_memory_bytes: 24e9, max_model_len: 131072 } });
  assert.equal(r.isError, undefined);
  assert.deepEqual(r.structuredContent, nativeJson(['plan', '--model', 'llama-3.1-8b', '--gpu-memory', '24GB', '--max-model-len', '131072']));
  assert.deepEqual(JSON.parse(r.content[1].text), r.structuredContent);
  assert.match(r.content[0].text, /^Will not start on .*The largest max_model_len that fits is 28,256\.$/);
});

test('check takes a pasted command and names the model limit and a fix', async () => {
  const launch = 'vllm serve Qwen/Qwen3-32B --max-model-len 131072';
  const r = await client.callTool({ name: 'check', arguments: { launch } });
  assert.deepEqual(r.structuredContent, nativeJson(['check', '--launch', launch]));
  assert.equal(r.structuredContent.starts, false);
  assert.match(r.content[0].text, /^Will not start: .*40960.* Fix: vllm serve Qwen\/Qwen3-32B --max-model-len 40960/);
  const fits = await client.callTool({ name: 'check', arguments: { launch: 'vllm serve Qwen/Qwen3-8B --max-model-len 32768' } });
  assert.match(fits.content[0].text, /^Starts on NVIDIA H100 SXM5 80GB: [\d.]+ sequences of 32,768 tokens fit\.$/);
  // llama.cpp sizes its buffers to the request: no sequence count to state.
  const llama = await client.callTool({ name: 'check', arguments: { launch: 'llama-server -hf bartowski/Meta-Llama-3-8B-Instruct-GGUF:Q4_K_M -c 8192', gpu: 'rtx-4090' } });
  assert.equal(llama.content[0].text, 'Starts on NVIDIA GeForce RTX 4090 24GB: max_model_len 8,192.');
});

test('estimate, solve and explain answer as the CLI does', async () => {
  const estimate = await client.callTool({ name: 'estimate', arguments: { model: 'llama-3.1-8b', context_tokens: 131072 } });
  assert.deepEqual(estimate.structuredContent, nativeJson(['estimate', '--model', 'llama-3.1-8b', '--context', '128k']));
  assert.equal(estimate.content[0].text, 'Llama 3.1 8B: 131,072 bytes of KV per token; 17.18 GB (16.00 GiB) for 1 sequence of 131,072 tokens (KV bf16).');

  const solve = await client.callTool({ name: 'solve', arguments: { model: 'qwen3-32b', concurrency: 20, context_tokens: 32768 } });
  assert.deepEqual(solve.structuredContent, nativeJson(['solve', '--model', 'qwen3-32b', '--concurrency', '20', '--context', '32768']));
  assert.match(solve.content[0].text, /^Cheapest that meets the target: \d+ x .* (vllm|python) /);

  const logFile = path.join(repoRoot, 'tests/data/logs/vllm-v0-llama31-8b-rtx3090-20k.log');
  const explain = await client.callTool({ name: 'explain', arguments: { log: { name: 'startup.log', text: readFileSync(logFile, 'utf8') }, model: 'llama-3.1-8b' } });
  assert.equal(explain.isError, undefined, explain.content[0].text);
  assert.equal(explain.structuredContent.figures.length, nativeJson(['explain', logFile, '--model', 'llama-3.1-8b']).figures.length);
  assert.match(explain.content[0].text, /^vLLM log, Llama 3\.1 8B: \d+ figures read, \d+ exact/);
});

test('bad input is a tool error naming the key, and the server keeps answering', async () => {
  const bad = await client.callTool({ name: 'plan', arguments: { model: 'llama-3.1-8b', batch: -1 } });
  assert.equal(bad.isError, true);
  assert.equal(bad.structuredContent.error.field, 'batch');
  assert.match(bad.content[0].text, /^kvscope: error: batch: must be 0 or more/);
  const unknown = await client.callTool({ name: 'plan', arguments: { model: 'llama-3.1-8b', max_model_length: 4096 } });
  assert.equal(unknown.structuredContent.error.field, 'max_model_length');
  const tool = await client.callTool({ name: 'sizing', arguments: {} });
  assert.equal(tool.isError, true);
  const after = await client.callTool({ name: 'estimate', arguments: { model: 'llama-3.1-8b' } });
  assert.equal(after.isError, undefined);
});

test('models and gpus list the catalogues, filtered by a query', async () => {
  const all = await client.callTool({ name: 'models', arguments: {} });
  assert.deepEqual(all.structuredContent, nativeJson(['models']));
  const qwen = await client.callTool({ name: 'models', arguments: { query: 'QWEN3' } });
  assert.ok(qwen.structuredContent.models.length >= 3);
  assert.ok(qwen.structuredContent.models.length < all.structuredContent.models.length);
  for (const m of qwen.structuredContent.models) assert.match(JSON.stringify(m), /qwen3/i);
  const h100 = await client.callTool({ name: 'gpus', arguments: { query: 'h100' } });
  assert.ok(h100.structuredContent.gpus.some((g) => g.id === 'h100-sxm-80gb'));
  assert.match(h100.content[0].text, /^\d+ GPUs?\.$/);
});

test("every committed request that is answered satisfies its command's packed schema", () => {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  const dir = path.join(repoRoot, 'tests/data/requests');
  let checked = 0;
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.request.json'))) {
    const request = JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
    const expected = JSON.parse(readFileSync(path.join(dir, name.replace('.request.json', '.expected.json')), 'utf8'));
    const schema = JSON.parse(readFileSync(path.join(folder, 'node_modules/kvscope/schema', `${request.command}.json`), 'utf8'));
    const valid = ajv.validate(schema, request);
    if (!expected.error) {
      assert.ok(valid, `${name}: ${ajv.errorsText()}`);
      ++checked;
    }
  }
  assert.ok(checked >= 6);
  const plan = JSON.parse(readFileSync(path.join(folder, 'node_modules/kvscope/schema/plan.json'), 'utf8'));
  assert.equal(ajv.validate(plan, { command: 'plan', model: 'llama-3.1-8b', context_tokens: 0 }), false, 'context_tokens: minimum 1');
  assert.equal(ajv.validate(plan, { command: 'plan', vllm: { gpu_memory_utilisation: 0.9 } }), false, 'unknown keys');
});
