// The page's state: its fields, their defaults (the article-2 story), their checks, the URL hash (a
// permalink) and the kvscope.request/1 objects built from it (the solver's in solve-request.js; the
// state of an explained log in explain-state.js). The fields are the request's own keys and units
// (bytes, tokens, "vllm.gpu_memory_utilization"); the controls show GB and TB/s.
import { KvscopeError } from './kvscope-client.js';

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
  const line = version && !e?.versions?.find((v) => v.id === version)?.default
    ? e?.versions?.find((v) => v.id === version)?.label : null;
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
const bool = () => ({ kind: 'bool' });
// Empty or 0 is null: left out of the request, so the engine's default (or "none") applies.
const unset = (spec) => ({ ...spec, unset: true });
const ID = /^[A-Za-z0-9._:/-]*$/;
const DIST = /^[A-Za-z0-9.:=,_-]*$/;
const PRICES = /^([a-z0-9._-]+:[0-9]+(\.[0-9]+)?(,|$))*$/;  // "h100-sxm-80gb:2.5,l4:0.8"
const IDS = /^[A-Za-z0-9._-]*(,[A-Za-z0-9._-]+)*$/;
const BYTES = 1e15;  // a petabyte: past any card, well inside a double's whole numbers

/**
 * Every field of the state, with its check. A field named as a request key holds that key's value
 * in its unit; the others are the page's own. Unknown or invalid URL fields are reported.
 */
export const FIELDS = {
  model: text(ID, 120),
  config: text(null, 1 << 20),      // a pasted or fetched config.json (the text itself)
  config_name: text(/^[^\u0000-\u001f]*$/, 200),
  set: text(/^[A-Za-z0-9_.=;:,\- "[\]]*$/, 400),  // config.json what-ifs: "FIELD=VALUE; FIELD=VALUE"
  weights_bytes: unset(int(0, BYTES)),  // fixed weight bytes; null = from the parameter count
  // Calibrated from a start-up log ("Explain my log"): what the engine measured on the user's card.
  kv_memory_bytes: unset(int(0, 2 ** 53)),  // the KV budget per GPU it printed; null = planned from the card
  'vllm.activation_bytes': unset(int(0, 2 ** 53)),  // vLLM's measured activation peak; null = kvscope's estimate
  'vllm.non_torch_bytes': unset(int(0, 2 ** 53)),   // vLLM's measured non-torch memory; likewise
  from_log: text(/^[^\u0000-\u001f]*$/, 200),  // which log the calibration came from (shown)
  checkpoint_bytes: unset(int(0, 2 ** 53)),  // a model.safetensors.index.json's total_size (request: weights_index)
  allow_long_context: bool(),       // VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (SGLang's likewise)
  serve_base: bool(),               // launch commands serve the base checkpoint, not the chat one
  // Speculative decoding with the model's MTP layers (speculative_config {method: "mtp"}); null = off.
  'speculative_config.num_speculative_tokens': unset(int(0, 64)),
  gpu: text(ID, 60),                // a catalogue id or "custom"
  gpu_memory_bytes: int(1e6, BYTES),  // the custom card's
  gpu_bandwidth_bytes_per_s: unset(int(0, BYTES)),
  gpu_dense_tflops: unset(num(0, 1e6)),
  gpus: unset(int(0, 10000)),       // null = what one replica needs (TP × PP)
  tensor_parallel: int(1, 1024),
  pipeline_parallel: int(1, 1024),
  engine: text(ID, 40),             // an id of kv.engines(); the core names an unknown one
  engine_version: text(ID, 40),     // a version line of the engine ('' = its current)
  'vllm.gpu_memory_utilization': unset(num(0.01, 1)),  // null = the release line's (0.92; 0.9 before 0.20)
  block_size_tokens: unset(int(0, 1 << 20)),
  'sglang.mem_fraction_static': unset(num(0, 1)),
  'sglang.mamba_full_memory_ratio': num(0.01, 100),  // SGLang hybrids: state pool / KV pool
  'tensorrt_llm.free_gpu_memory_fraction': num(0.01, 1),
  'llama_cpp.parallel': int(1, 1 << 16),
  'ollama.num_ctx': unset(int(1, 2 ** 32 - 1)),  // null = Ollama's default for the VRAM (shown)
  'ollama.num_parallel': int(1, 1 << 16),
  overhead_bytes: unset(int(0, BYTES)),
  kv_dtype: text(ID, 40),
  weight_dtype: text(ID, 40),
  context_tokens: int(1, 1e12),     // also the engine's max_model_len
  batch: int(1, 1e9),
  shared_prefix_tokens: unset(int(0, 1e12)),
  prompt_lengths: text(DIST, 80),
  output_lengths: text(DIST, 80),
  prompt_tokens: int(1, 1e9),
  output_tokens: int(1, 1e9),
  // Which GPUs (the solver): the target is `batch` sequences of `context_tokens` tokens.
  min_decode_tokens_per_s: unset(num(0, 1e6)),  // decode tokens/s each sequence needs at least
  max_ttft_s: unset(num(0, 1e5)),   // seconds to the first token at most
  max_gpus: int(1, 4096),
  solve_gpus: text(IDS, 400),       // GPU ids to consider (the request's gpu list); empty = every one
  prices_usd_per_hour: text(PRICES, 2000),  // $/GPU-hour the user typed, "id:usd,..."
  solve: int(0, 1),                 // the page shows the solver's answer
  units: oneOf('GiB', 'GB'),
  theme: oneOf('auto', 'light', 'dark'),
  pins: text(null, 1 << 16),        // pinned scenarios: a JSON array of permalink hashes
};

/** First open: Llama-3.1-8B in bf16 on a 24 GB card at 128K context under vLLM (article 2). */
export const DEFAULTS = Object.freeze({
  model: 'llama-3.1-8b', config: '', config_name: '', set: '', weights_bytes: null,
  kv_memory_bytes: null, 'vllm.activation_bytes': null, 'vllm.non_torch_bytes': null, from_log: '',
  checkpoint_bytes: null, allow_long_context: false, serve_base: false,
  'speculative_config.num_speculative_tokens': null,
  gpu: 'custom', gpu_memory_bytes: 24e9, gpu_bandwidth_bytes_per_s: null, gpu_dense_tflops: null,
  gpus: null, tensor_parallel: 1, pipeline_parallel: 1,
  engine: 'vllm', engine_version: '', 'vllm.gpu_memory_utilization': null, block_size_tokens: null,
  'sglang.mem_fraction_static': null, 'sglang.mamba_full_memory_ratio': 0.9,
  'tensorrt_llm.free_gpu_memory_fraction': 0.9, 'llama_cpp.parallel': 1,
  'ollama.num_ctx': null, 'ollama.num_parallel': 1, overhead_bytes: null,
  kv_dtype: 'auto', weight_dtype: 'auto',
  context_tokens: 131072, batch: 1, shared_prefix_tokens: null, prompt_lengths: '', output_lengths: '',
  prompt_tokens: 5, output_tokens: 64,
  min_decode_tokens_per_s: null, max_ttft_s: null, max_gpus: 64, solve_gpus: '', prices_usd_per_hour: '',
  solve: 0, units: 'GiB', theme: 'auto', pins: '',
});

/**
 * The names permalinks and widget attributes used before the state took the request's keys, each
 * with its field and the unit it was written in (GB, TB/s): old links and embeds keep working.
 * @type {Record<string, [string, number?]>}
 */
export const OLD_NAMES = {
  weights_gb: ['weights_bytes', 1e9], activation_bytes: ['vllm.activation_bytes'],
  non_torch_bytes: ['vllm.non_torch_bytes'], mtp_tokens: ['speculative_config.num_speculative_tokens'],
  gpu_memory_gb: ['gpu_memory_bytes', 1e9], gpu_bandwidth_tbs: ['gpu_bandwidth_bytes_per_s', 1e12],
  gpu_tflops: ['gpu_dense_tflops'], tp: ['tensor_parallel'], pp: ['pipeline_parallel'],
  gpu_memory_utilization: ['vllm.gpu_memory_utilization'], block_size: ['block_size_tokens'],
  mem_fraction_static: ['sglang.mem_fraction_static'],
  mamba_full_memory_ratio: ['sglang.mamba_full_memory_ratio'],
  free_gpu_memory_fraction: ['tensorrt_llm.free_gpu_memory_fraction'], parallel: ['llama_cpp.parallel'],
  overhead_gb: ['overhead_bytes', 1e9], context: ['context_tokens'], shared_prefix: ['shared_prefix_tokens'],
  min_decode_tps: ['min_decode_tokens_per_s'], max_ttft: ['max_ttft_s'], prices: ['prices_usd_per_hour'],
};

/**
 * Checks one field's value (a string from the URL, an attribute or a control).
 * @param {string} name a field of FIELDS
 * @param {any} raw
 * @param {{scale?: number, as?: string}} [shown] the value is in units of `scale` (1e9: GB of a
 *   byte field); messages name the field `as` (an old name, an attribute), in those units
 * @returns {{ok: boolean, value?: any, message?: string}}
 */
export function checkField(name, raw, { scale = 1, as = name } = {}) {
  const f = FIELDS[name];
  if (!f) return { ok: false, message: `unknown field ${JSON.stringify(String(as).slice(0, 40))}` };
  const s = String(raw);
  if (f.kind === 'int' || f.kind === 'num') {
    if (f.unset && (s.trim() === '' || Number(s) === 0)) return { ok: true, value: null };
    const v = Number(s);
    if (s.trim() === '' || !Number.isFinite(v) || (f.kind === 'int' && scale === 1 && !Number.isInteger(v))) {
      return { ok: false, message: `${as}: expected ${f.kind === 'int' ? 'a whole number' : 'a number'}, got ${quote(s)}` };
    }
    if (v * scale < f.min || v * scale > f.max) {
      return { ok: false, message: `${as}: must be between ${f.min / scale} and ${f.max / scale}, got ${quote(s)}` };
    }
    return { ok: true, value: f.kind === 'int' ? Math.round(v * scale) : v * scale };
  }
  if (f.kind === 'bool') {
    if (s === 'true' || s === '1') return { ok: true, value: true };
    if (s === 'false' || s === '0') return { ok: true, value: false };
    return { ok: false, message: `${as}: expected true or false, got ${quote(s)}` };
  }
  if (f.kind === 'enum') {
    return f.values.includes(s) ? { ok: true, value: s }
      : { ok: false, message: `${as}: expected one of ${f.values.join(', ')}, got ${quote(s)}` };
  }
  if (s.length > f.max) return { ok: false, message: `${as}: longer than ${f.max} characters` };
  if (f.pattern && !f.pattern.test(s)) return { ok: false, message: `${as}: unexpected characters in ${quote(s)}` };
  return { ok: true, value: s };
}

/**
 * Checks a value given under a field's name or its old one (read in its old unit).
 * @param {string} name as written in the URL or an attribute (snake_case)
 * @param {string} [as] the name messages use (an attribute's spelling); default `name`
 * @returns {{field: string, ok: boolean, value?: any, message?: string}}
 */
export function checkNamed(name, raw, as = name) {
  const [field, scale = 1] = OLD_NAMES[name] ?? [name];
  return { field, ...checkField(field, raw, { scale, as }) };
}

/** A field's (or an old name's) widget attribute: kebab-case, "vllm.gpu_memory_utilization" as "vllm-gpu-memory-utilization". */
export function attributeOf(name) {
  return name.replace(/[._]/g, '-');
}

/** The field a name stands for: itself, or the field an old name became. */
export function fieldOf(name) {
  return OLD_NAMES[name]?.[0] ?? name;
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
    const checked = checkNamed(key, raw);
    if (checked.ok) state[checked.field] = checked.value;
    else refused.push({ field: checked.field, message: `URL ${checked.message}` });
  }
  if (state.pins) state.pins = samePinsInTodaysNames(state.pins);
  return { state, refused };
}

// Pins of an old link in today's field names, so that pinning the same scenario again is refused
// as already pinned; a pin the page cannot read stays as it was (the compare table says why).
function samePinsInTodaysNames(pins) {
  let hashes;
  try { hashes = JSON.parse(pins); } catch { return pins; }
  if (!Array.isArray(hashes)) return pins;
  return JSON.stringify(hashes.map((h) => {
    if (typeof h !== 'string') return h;
    const { state, refused } = parseHash(h);
    return refused.length ? h : scenarioHash(state);
  }));
}

/** The permalink hash of a state: only fields that differ from the defaults, in a fixed order. */
export function toHash(state) {
  const params = new URLSearchParams();
  for (const key of Object.keys(FIELDS)) {
    const value = state[key];
    if (value !== undefined && value !== DEFAULTS[key]) params.set(key, value === null ? '' : String(value));
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
 * The kvscope.request/1 of `plan` for a state (plus what-if overrides `set`): the state's request
 * keys, with the card as a catalogue id, a custom card's figures or a log's KV budget.
 * @param {Record<string, any>} s a state (DEFAULTS' fields)
 * @param {string[]} [set] FIELD=VALUE what-ifs
 * @returns {import('./kvscope').PlanRequest}
 */
export function planRequest(s, set = []) {
  const measured = s.kv_memory_bytes > 0;  // the log's KV budget stands for the card (null: none)
  const custom = s.gpu === 'custom' && !measured;
  const overrides = overridesOf([...splitSet(s.set), ...set]);
  const lengths = Boolean(s.prompt_lengths && s.output_lengths);  // a distribution needs both
  const mtp = s['speculative_config.num_speculative_tokens'];
  /** @type {import('./kvscope').PlanRequest} */
  const request = {
    ...modelSource(s),
    gpu: custom || measured ? null : s.gpu,
    gpu_memory_bytes: custom ? s.gpu_memory_bytes : null,
    kv_memory_bytes: s.kv_memory_bytes,
    gpu_bandwidth_bytes_per_s: custom ? s.gpu_bandwidth_bytes_per_s : null,
    gpu_dense_tflops: custom ? s.gpu_dense_tflops : null,
    gpus: s.gpus,
    tensor_parallel: s.tensor_parallel,
    pipeline_parallel: s.pipeline_parallel,
    engine: s.engine,
    engine_version: s.engine_version || null,
    kv_dtype: s.kv_dtype,
    weight_dtype: s.weight_dtype,
    weights_bytes: s.weights_bytes,
    weights_index: s.checkpoint_bytes > 0 && !(s.weights_bytes > 0) ? weightsIndex(s.checkpoint_bytes) : null,
    allow_long_context: s.allow_long_context,
    serve_base: s.serve_base,
    speculative_config: mtp > 0 ? mtpConfig(mtp) : null,
    max_model_len: s.context_tokens,
    context_tokens: s.context_tokens,
    batch: s.batch,
    shared_prefix_tokens: s.shared_prefix_tokens,
    prompt_lengths: lengths ? s.prompt_lengths : null,
    output_lengths: lengths ? s.output_lengths : null,
    set: Object.keys(overrides).length ? overrides : null,
  };
  // The knobs the engine reads and what its log said it measured, each a field of the state at
  // its request key ("vllm.gpu_memory_utilization"); a measurement only where the state has one.
  const info = engineInfo(s.engine);
  for (const key of [...(info?.knobs ?? []), ...(info?.calibration ?? [])]) {
    if (s[key] === undefined || (s[key] === null && info?.calibration.includes(key))) continue;
    setAt(request, key, s[key]);
  }
  return request;
}

/** Each engine's knob that is a share of the card: the memory it requests over the card's. */
const CARD_SHARE = { vllm: 'vllm.gpu_memory_utilization', sglang: 'sglang.mem_fraction_static' };

/**
 * The value a plan ran at for `field` when that is its engine's share of the card (vLLM's
 * gpu_memory_utilization, SGLang's mem_fraction_static): the one given, else the engine's default,
 * as its budget shows it; null for any other field, or where the budget was given.
 * @param {import('./kvscope').PlanReport} plan @param {string} field a state field
 */
export function cardShareOf(plan, field) {
  const b = plan.budget;
  if (CARD_SHARE[plan.input.engine] !== field || b.kv_memory_given || !plan.gpu.memory_bytes) return null;
  return Number((b.requested_bytes / plan.gpu.memory_bytes).toFixed(4));
}

/**
 * The value a plan ran at for a knob left empty: the engine's share of the card (cardShareOf), or
 * the num_ctx Ollama took; null for any other field.
 * @param {import('./kvscope').PlanReport} plan @param {string} field a state field
 */
export function engineDefaultOf(plan, field) {
  if (field === 'ollama.num_ctx') return plan.ollama?.num_ctx ?? null;
  return cardShareOf(plan, field);
}

/** Sets a request key, a dotted one ("vllm.gpu_memory_utilization") in its group. */
export function setAt(request, key, value) {
  const [group, name] = key.includes('.') ? key.split('.') : [null, key];
  (group ? (request[group] ??= {}) : request)[name] = value;
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
  return { ...planRequest(s), sweep: { points: 48, min_context_tokens: Math.min(512, s.context_tokens) } };
}

/** @returns {import('./kvscope').EstimateRequest} the projection count ("why a cache"). */
export function whyCacheRequest(s) {
  return {
    ...modelSource(s),
    kv_dtype: s.kv_dtype,
    context_tokens: s.context_tokens,
    prompt_tokens: s.prompt_tokens,
    output_tokens: s.output_tokens,
  };
}

/** Quotes one shell word when it needs it. */
export function shellWord(w) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}
