// The page's state: its fields, their defaults (the article-2 story), their checks, and the two
// translations out of it: the URL hash (a permalink) and the kvscope.request/1 objects (the
// solver's in solve-request.js; the state of an explained log in explain-state.js).
import { KvscopeError } from './kvscope-client.js';

/**
 * The page's field for each engine knob and calibration key the core lists (kvscope.engines/1
 * knobs and calibration are request keys), and its value in a request.
 * @type {Record<string, {field: string, value: (s: Record<string, any>) => number | null}>}
 */
export const KNOBS = {
  'vllm.gpu_memory_utilization': { field: 'gpu_memory_utilization', value: (s) => s.gpu_memory_utilization },
  block_size_tokens: { field: 'block_size', value: (s) => (s.block_size > 0 ? s.block_size : null) },
  'sglang.mem_fraction_static': { field: 'mem_fraction_static', value: (s) => (s.mem_fraction_static > 0 ? s.mem_fraction_static : null) },
  'sglang.mamba_full_memory_ratio': { field: 'mamba_full_memory_ratio', value: (s) => s.mamba_full_memory_ratio },
  'tensorrt_llm.free_gpu_memory_fraction': { field: 'free_gpu_memory_fraction', value: (s) => s.free_gpu_memory_fraction },
  'llama_cpp.parallel': { field: 'parallel', value: (s) => s.parallel },
  overhead_bytes: { field: 'overhead_gb', value: (s) => (s.overhead_gb > 0 ? Math.round(s.overhead_gb * 1e9) : null) },
  // What the engine measured, from an explained start-up log (kvscope.engines/1 calibration).
  'vllm.activation_bytes': { field: 'activation_bytes', value: (s) => s.activation_bytes || null },
  'vllm.non_torch_bytes': { field: 'non_torch_bytes', value: (s) => s.non_torch_bytes || null },
};

/** @type {Record<string, import('./kvscope').EngineInfo>|null} the core's engine table, by id */
let engines = null;

/**
 * Installs the core's engine catalogue (kv.engines()): which knobs each engine reads.
 * @param {import('./kvscope').EngineCatalogue} catalogue
 */
export function useEngines(catalogue) {
  engines = Object.fromEntries(catalogue.engines.map((e) => [e.id, e]));
}

/**
 * The engine's label ("vLLM"), with the version line when it is not the current ("vLLM 0.14-0.15");
 * the id itself before the catalogue is installed.
 */
export function engineLabel(id, version = null) {
  const e = engines?.[id];
  const line = version && e?.versions?.length && e.versions[0].id !== version
    ? e.versions.find((v) => v.id === version)?.label : null;
  return line ? `${e.label} ${line}` : e?.label ?? id;
}

/** The engine's row of the core's catalogue (useEngines first); null for an unknown id. */
export function engineInfo(id) {
  if (!engines) throw new Error('kvscope: useEngines(kv.engines()) before building requests');
  return engines[id] ?? null;
}

/** Scenarios compared side by side at most: the page's pins, and so a compare widget's. */
export const MOST_PINS = 4;

/** The answers a <kv-cache-explorer> widget can show (its `view` attribute). */
export const WIDGET_VIEWS = ['startup', 'bytes-per-token', 'concurrency', 'context-sweep', 'compare', 'projections', 'solve'];

const int = (min, max) => ({ kind: 'int', min, max });
const num = (min, max) => ({ kind: 'num', min, max });
const text = (pattern, max = 200) => ({ kind: 'text', pattern, max });
const oneOf = (...values) => ({ kind: 'enum', values });
const ID = /^[A-Za-z0-9._:/-]*$/;
const DIST = /^[A-Za-z0-9.:=,_-]*$/;
const PRICES = /^([a-z0-9._-]+:[0-9]+(\.[0-9]+)?(,|$))*$/;  // "h100-sxm-80gb:2.5,l4:0.8"
const IDS = /^[A-Za-z0-9._-]*(,[A-Za-z0-9._-]+)*$/;

/** Every field of the state, with its check. Unknown or invalid URL fields are reported. */
export const FIELDS = {
  model: text(ID, 120),
  config: text(null, 1 << 20),      // a pasted or fetched config.json (the text itself)
  config_name: text(/^[^\u0000-\u001f]*$/, 200),
  set: text(/^[A-Za-z0-9_.=;:,\- "[\]]*$/, 400),  // config.json what-ifs: "FIELD=VALUE; FIELD=VALUE"
  weights_gb: num(0, 1e6),          // fixed weight bytes (GB); 0 = from the parameter count
  // Calibrated from a start-up log ("Explain my log"): what the engine measured on the user's card.
  kv_memory_bytes: int(0, 2 ** 53), // the KV budget per GPU it printed; 0 = planned from the card
  activation_bytes: int(0, 2 ** 53), // vLLM's measured activation peak; 0 = kvscope's estimate
  non_torch_bytes: int(0, 2 ** 53),  // vLLM's measured non-torch memory; 0 = kvscope's estimate
  from_log: text(/^[^\u0000-\u001f]*$/, 200),  // which log the calibration came from (shown)
  checkpoint_bytes: int(0, 2 ** 53), // a model.safetensors.index.json's total_size; 0 = none
  allow_long_context: int(0, 1),    // VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (SGLang's likewise)
  mtp_tokens: int(0, 64),           // speculative decoding with the model's MTP layers; 0 = off
  gpu: text(ID, 60),                // a catalogue id or "custom"
  gpu_memory_gb: num(0.001, 1e6),
  gpu_bandwidth_tbs: num(0, 1000),
  gpu_tflops: num(0, 1e6),
  gpus: int(0, 10000),              // 0 = what one replica needs (TP × PP)
  tp: int(1, 1024),
  pp: int(1, 1024),
  engine: text(ID, 40),             // an id of kv.engines(); the core names an unknown one
  engine_version: text(ID, 40),     // a version line of the engine ('' = its current)
  gpu_memory_utilization: num(0.01, 1),
  block_size: int(0, 1 << 20),
  mem_fraction_static: num(0, 1),
  mamba_full_memory_ratio: num(0.01, 100),  // SGLang hybrids: state pool / KV pool
  free_gpu_memory_fraction: num(0.01, 1),
  parallel: int(1, 1 << 16),
  overhead_gb: num(0, 1e6),
  kv_dtype: text(ID, 40),
  weight_dtype: text(ID, 40),
  context: int(1, 1e12),
  batch: int(1, 1e9),
  shared_prefix: int(0, 1e12),
  prompt_lengths: text(DIST, 80),
  output_lengths: text(DIST, 80),
  prompt_tokens: int(1, 1e9),
  output_tokens: int(1, 1e9),
  // Which GPUs (the solver): the target is `batch` sequences of `context` tokens.
  min_decode_tps: num(0, 1e6),      // decode tokens/s each sequence needs at least; 0 = none
  max_ttft: num(0, 1e5),            // seconds to the first token at most; 0 = none
  max_gpus: int(1, 4096),
  solve_gpus: text(IDS, 400),       // GPU ids to consider; empty = every one
  prices: text(PRICES, 2000),       // $/GPU-hour the user typed, by GPU id
  solve: int(0, 1),                 // the page shows the solver's answer
  units: oneOf('GiB', 'GB'),
  theme: oneOf('auto', 'light', 'dark'),
  pins: text(null, 1 << 16),        // pinned scenarios: a JSON array of permalink hashes
};

/** First open: Llama-3.1-8B in bf16 on a 24 GB card at 128K context under vLLM (article 2). */
export const DEFAULTS = Object.freeze({
  model: 'llama-3.1-8b', config: '', config_name: '', set: '', weights_gb: 0,
  kv_memory_bytes: 0, activation_bytes: 0, non_torch_bytes: 0, from_log: '',
  checkpoint_bytes: 0, allow_long_context: 0, mtp_tokens: 0,
  gpu: 'custom', gpu_memory_gb: 24, gpu_bandwidth_tbs: 0, gpu_tflops: 0,
  gpus: 0, tp: 1, pp: 1,
  engine: 'vllm', engine_version: '', gpu_memory_utilization: 0.9, block_size: 0, mem_fraction_static: 0,
  mamba_full_memory_ratio: 0.9,
  free_gpu_memory_fraction: 0.9, parallel: 1, overhead_gb: 0,
  kv_dtype: 'auto', weight_dtype: 'auto',
  context: 131072, batch: 1, shared_prefix: 0, prompt_lengths: '', output_lengths: '',
  prompt_tokens: 5, output_tokens: 64,
  min_decode_tps: 0, max_ttft: 0, max_gpus: 64, solve_gpus: '', prices: '', solve: 0,
  units: 'GiB', theme: 'auto', pins: '',
});

/**
 * Checks one field's value (a string from the URL or a control).
 * @returns {{ok: boolean, value?: any, message?: string}}
 */
export function checkField(name, raw) {
  const f = FIELDS[name];
  if (!f) return { ok: false, message: `unknown field ${JSON.stringify(String(name).slice(0, 40))}` };
  const s = String(raw);
  if (f.kind === 'int' || f.kind === 'num') {
    const v = Number(s);
    if (s.trim() === '' || !Number.isFinite(v) || (f.kind === 'int' && !Number.isInteger(v))) {
      return { ok: false, message: `${name}: expected ${f.kind === 'int' ? 'a whole number' : 'a number'}, got ${quote(s)}` };
    }
    if (v < f.min || v > f.max) return { ok: false, message: `${name}: must be between ${f.min} and ${f.max}, got ${quote(s)}` };
    return { ok: true, value: v };
  }
  if (f.kind === 'enum') {
    return f.values.includes(s) ? { ok: true, value: s }
      : { ok: false, message: `${name}: expected one of ${f.values.join(', ')}, got ${quote(s)}` };
  }
  if (s.length > f.max) return { ok: false, message: `${name}: longer than ${f.max} characters` };
  if (f.pattern && !f.pattern.test(s)) return { ok: false, message: `${name}: unexpected characters in ${quote(s)}` };
  return { ok: true, value: s };
}

/** Quotes untrusted text for a message: 40 characters at most, one line. */
export function quote(s) {
  const t = String(s).replace(/[\u0000-\u001f\u007f]/g, '?');
  return JSON.stringify(t.length > 40 ? `${t.slice(0, 40)}…` : t);
}

/**
 * The state a permalink hash describes; fields that fail their check keep the default and are
 * listed in `refused`, each with its message (the page notes each beside its control).
 * @param {string} hash location.hash, with or without '#'
 * @returns {{state: Record<string, any>, refused: {field: string, message: string}[]}}
 */
export function parseHash(hash) {
  const state = { ...DEFAULTS };
  const refused = [];
  const params = new URLSearchParams(String(hash).replace(/^#/, ''));
  for (const [key, raw] of params) {
    const checked = checkField(key, raw);
    if (checked.ok) state[key] = checked.value;
    else refused.push({ field: key, message: `URL ${checked.message}` });
  }
  return { state, refused };
}

/** The permalink hash of a state: only fields that differ from the defaults, in a fixed order. */
export function toHash(state) {
  const params = new URLSearchParams();
  for (const key of Object.keys(FIELDS)) {
    if (state[key] !== undefined && state[key] !== DEFAULTS[key]) params.set(key, String(state[key]));
  }
  return params.toString();
}

/** A pinned scenario's hash: the state without the pins, units and theme (the page's, not its). */
export function scenarioHash(s) {
  return toHash({ ...s, pins: '', units: DEFAULTS.units, theme: DEFAULTS.theme });
}

/** The request's model source: a catalogue id or an in-memory config.json. */
export function modelSource(s) {
  return s.config ? { config: { name: s.config_name || 'config.json', text: s.config } } : { model: s.model };
}

/**
 * The kvscope.request/1 of `plan` for a state (plus what-if overrides `set`).
 * @param {Record<string, any>} s a state (DEFAULTS' fields)
 * @param {string[]} [set] FIELD=VALUE what-ifs
 * @returns {import('./kvscope').PlanRequest}
 */
export function planRequest(s, set = []) {
  const measured = s.kv_memory_bytes > 0;  // the log's KV budget stands for the card
  const custom = s.gpu === 'custom' && !measured;
  const overrides = overridesOf([...splitSet(s.set), ...set]);
  /** @type {import('./kvscope').PlanRequest} */
  const request = {
    ...modelSource(s),
    gpu: custom || measured ? null : s.gpu,
    gpu_memory_bytes: custom ? Math.round(s.gpu_memory_gb * 1e9) : null,
    kv_memory_bytes: measured ? s.kv_memory_bytes : null,
    gpu_bandwidth_bytes_per_s: custom && s.gpu_bandwidth_tbs > 0 ? Math.round(s.gpu_bandwidth_tbs * 1e12) : null,
    gpu_dense_tflops: custom && s.gpu_tflops > 0 ? s.gpu_tflops : null,
    gpus: s.gpus > 0 ? s.gpus : null,
    tensor_parallel: s.tp,
    pipeline_parallel: s.pp,
    engine: s.engine,
    engine_version: s.engine_version || null,
    kv_dtype: s.kv_dtype,
    weight_dtype: s.weight_dtype,
    weights_bytes: s.weights_gb > 0 ? Math.round(s.weights_gb * 1e9) : null,
    weights_index: s.checkpoint_bytes > 0 && !(s.weights_gb > 0) ? weightsIndex(s.checkpoint_bytes) : null,
    allow_long_context: s.allow_long_context === 1,
    speculative_config: s.mtp_tokens > 0 ? mtpConfig(s.mtp_tokens) : null,
    max_model_len: s.context,
    context_tokens: s.context,
    batch: s.batch,
    shared_prefix_tokens: s.shared_prefix,
    prompt_lengths: s.prompt_lengths && s.output_lengths ? s.prompt_lengths : null,
    output_lengths: s.prompt_lengths && s.output_lengths ? s.output_lengths : null,
    set: Object.keys(overrides).length ? overrides : null,
  };
  // The knobs the engine reads and what its log said it measured, each at its request key
  // ("vllm.gpu_memory_utilization"); a measurement only where the state has one.
  const info = engineInfo(s.engine);
  for (const key of [...(info?.knobs ?? []), ...(info?.calibration ?? [])]) {
    const value = KNOBS[key]?.value(s) ?? null;
    if (value === null && info?.calibration.includes(key)) continue;
    const [group, name] = key.includes('.') ? key.split('.') : [null, key];
    const at = group ? (request[group] ??= {}) : request;
    at[name] = value;
  }
  return request;
}

/**
 * "FIELD=VALUE" what-ifs as the request's `set` object (VALUE read as JSON, else text).
 * @param {string[]} list
 * @returns {Record<string, string>}
 */
export function overridesOf(list) {
  /** @type {Record<string, string>} */
  const set = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new KvscopeError('invalid_value', 'set', `set: expected FIELD=VALUE, got ${quote(item)}`);
    set[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return set;
}

/** vLLM's --speculative-config for drafting with the model's own MTP layers. */
export function mtpConfig(tokens) {
  return { method: 'mtp', num_speculative_tokens: tokens };
}

/**
 * A model.safetensors.index.json reduced to what kvscope reads of it (the permalink keeps the
 * number, not the 100,000-entry weight map).
 * @param {number} totalSize metadata.total_size in bytes
 */
export function weightsIndex(totalSize) {
  return { name: 'model.safetensors.index.json', text: JSON.stringify({ metadata: { total_size: totalSize } }) };
}

/**
 * metadata.total_size of a model.safetensors.index.json's text.
 * @returns {{ok: boolean, value?: number, message?: string}}
 */
export function indexTotalSize(text) {
  let parsed;
  try { parsed = JSON.parse(text); } catch (e) {
    return { ok: false, message: `model.safetensors.index.json: not valid JSON (${String(e.message).slice(0, 80)})` };
  }
  const total = parsed && parsed.metadata ? parsed.metadata.total_size : undefined;
  if (!Number.isSafeInteger(total) || total <= 0) {
    return { ok: false, message: 'model.safetensors.index.json: metadata.total_size is missing or not a whole number of bytes' };
  }
  return { ok: true, value: total };
}

/** "a=1; b=2" -> ["a=1", "b=2"] (the --set values of the state). */
export function splitSet(text) {
  return String(text ?? '').split(';').map((x) => x.trim()).filter(Boolean);
}

/** @returns {import('./kvscope').SweepRequest} the plan's request, with the page's chart resolution. */
export function sweepRequest(s) {
  return { ...planRequest(s), sweep: { points: 48, min_context_tokens: Math.min(512, s.context) } };
}

/** @returns {import('./kvscope').EstimateRequest} the projection count ("why a cache"). */
export function whyCacheRequest(s) {
  return {
    ...modelSource(s),
    kv_dtype: s.kv_dtype,
    context_tokens: s.context,
    prompt_tokens: s.prompt_tokens,
    output_tokens: s.output_tokens,
  };
}

/** Quotes one shell word when it needs it. */
export function shellWord(w) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}
