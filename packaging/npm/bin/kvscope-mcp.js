#!/usr/bin/env node
// kvscope-mcp: the kvscope core as an MCP server on stdio (the official TypeScript SDK's low-level
// Server, so each tool's input schema is the JSON Schema the core writes for its request:
// schema/<command>.json, from `kvscope <command> --request-schema` at pack time). Every tool is
// read-only: a kvscope.request/1 in, the report JSON out (structuredContent, and as text after one
// line that says the answer, js/report-text.js). No logic of its own but the catalogue filter.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { KvscopeError, loadKvscope } from '../js/kvscope-client.js';
import { reportLine } from '../js/report-text.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** A command's request schema as a tool's input: its keys, without the envelope (the tool is the command). */
function inputSchema(command) {
  const schema = JSON.parse(readFileSync(new URL(`../schema/${command}.json`, import.meta.url), 'utf8'));
  const { schema: _envelope, command: _command, ...properties } = schema.properties;
  return { type: 'object', properties, additionalProperties: false, ...(schema.required ? { required: schema.required } : {}) };
}

const catalogueQuery = {
  type: 'object',
  properties: { query: { type: 'string', description: 'only entries whose id, name or other names contain this text (any case)' } },
  additionalProperties: false,
};

/** @type {Record<string, {title: string, description: string, inputSchema: object}>} */
const tools = {
  estimate: {
    title: 'KV-cache size',
    description: 'KV-cache bytes per token, per sequence and for a batch, per layer group (full, sliding window, MLA, recurrent), for a catalogue model or a pasted config.json.',
    inputSchema: inputSchema('estimate'),
  },
  plan: {
    title: 'Plan a deployment',
    description: "A serving engine's KV budget on a GPU (vLLM, SGLang, TensorRT-LLM, llama.cpp, Ollama): weights, the KV pool, the tokens and sequences it holds, whether the engine starts (and its error if not), the largest max_model_len that fits, the roofline speed and the launch command.",
    inputSchema: inputSchema('plan'),
  },
  solve: {
    title: 'Cheapest GPUs for a target',
    description: 'A target (concurrency sequences of context_tokens, optionally a decode speed and TTFT) to the cheapest layout per GPU type: GPUs, TP/PP/DP, KV and weight dtypes, capacity, speed, $/hour and the launch command.',
    inputSchema: inputSchema('solve'),
  },
  explain: {
    title: "Explain an engine's start-up log",
    description: "A pasted start-up log (vLLM, SGLang, TensorRT-LLM, llama.cpp, Ollama): each memory figure it printed, reproduced from the model's shape and matched (exact / rounding / differs, with the reason), and the plan it describes.",
    inputSchema: inputSchema('explain'),
  },
  check: {
    title: 'Check a launch command',
    description: 'A launch command as pasted (vllm serve, python -m sglang.launch_server, trtllm-serve, llama-server, Ollama env/Modelfile, docker run): whether it starts and why not, the changes that make it start (as the edited command), and the flags kvscope does not model.',
    inputSchema: inputSchema('check'),
  },
  models: {
    title: 'Model catalogue',
    description: 'The catalogue models: ids for the model key, with their Hugging Face repositories.',
    inputSchema: catalogueQuery,
  },
  gpus: {
    title: 'GPU catalogue',
    description: 'The catalogue GPUs: ids for the gpu key, memory as the device reports it, bandwidth, peaks and prices with sources.',
    inputSchema: catalogueQuery,
  },
};

/** A catalogue's entries whose text fields contain `query`, case-insensitively. */
function filtered(report, list, query) {
  if (!query) return report;
  const needle = String(query).toLowerCase();
  const matches = (entry) => Object.values(entry).some((v) =>
    (typeof v === 'string' || Array.isArray(v)) && String(v).toLowerCase().includes(needle));
  return { ...report, [list]: report[list].filter(matches) };
}

async function call(name, args) {
  const kvscope = await loadKvscope({ full: true });
  if (name === 'models' || name === 'gpus') return filtered(kvscope[name](), name, args.query);
  return kvscope[name](args);
}

const server = new Server(
  { name: 'kvscope', version: pkg.version },
  {
    capabilities: { tools: {} },
    instructions: 'kvscope sizes the KV cache of LLMs and plans their serving: will a model start on a GPU under an engine, how many sequences fit, the cheapest layout for a target. Find ids with models and gpus; a config.json can be given as config: {name, text}. Sizes are bytes; GB = 10^9, GiB = 2^30.',
  },
);

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: Object.entries(tools).map(([name, t]) => ({
    name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema,
    annotations: { title: t.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  })),
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args = {} } = request.params;
  const tool = tools[name];
  if (!tool) {
    return { isError: true, content: [{ type: 'text', text: `unknown tool ${JSON.stringify(name)} (expected ${Object.keys(tools).join(', ')})` }] };
  }
  try {
    const report = await call(name, args);
    return {
      content: [{ type: 'text', text: reportLine(name, report) }, { type: 'text', text: JSON.stringify(report) }],
      structuredContent: report,
    };
  } catch (e) {
    const error = e instanceof KvscopeError
      ? { code: e.code, field: e.field, message: e.message }
      : { code: 'internal_error', field: '', message: String(e && e.message ? e.message : e) };
    return {
      isError: true,
      content: [{ type: 'text', text: `kvscope: error: ${error.message}` }],
      structuredContent: { error },
    };
  }
});

await server.connect(new StdioServerTransport());
