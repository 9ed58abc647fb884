// The form: the controls bound to state fields, written from the state and read back with their
// checks, the model and catalogue lists, and the context control's note.
import { commas } from './format.js';
import { checkField, engineInfo } from './state.js';
import { resetCharts } from './charts.js';
import { KvscopeError } from './kvscope-client.js';
import { $, clearFieldNotes, page, showInputError, update } from './page.js';

// Controls bound one-to-one to state fields: [element id, field].
export const BOUND = [
  ['gpu', 'gpu'], ['gpu-memory-gb', 'gpu_memory_gb'], ['gpu-bandwidth-tbs', 'gpu_bandwidth_tbs'],
  ['gpu-tflops', 'gpu_tflops'], ['gpus', 'gpus'], ['tp', 'tp'], ['pp', 'pp'], ['engine', 'engine'],
  ['engine-version', 'engine_version'],
  ['gpu-memory-utilization', 'gpu_memory_utilization'], ['block-size', 'block_size'],
  ['mem-fraction-static', 'mem_fraction_static'], ['mamba-full-memory-ratio', 'mamba_full_memory_ratio'], ['free-gpu-memory-fraction', 'free_gpu_memory_fraction'],
  ['parallel', 'parallel'], ['overhead-gb', 'overhead_gb'], ['kv-dtype', 'kv_dtype'],
  ['weight-dtype', 'weight_dtype'], ['context', 'context'], ['batch', 'batch'],
  ['shared-prefix', 'shared_prefix'], ['prompt-lengths', 'prompt_lengths'],
  ['output-lengths', 'output_lengths'], ['prompt-tokens', 'prompt_tokens'],
  ['output-tokens', 'output_tokens'], ['theme', 'theme'], ['set', 'set'], ['weights-gb', 'weights_gb'],
  ['mtp-tokens', 'mtp_tokens'], ['min-decode-tps', 'min_decode_tps'], ['max-ttft', 'max_ttft'],
  ['max-gpus', 'max_gpus'],
];
// Request keys that name a control, for error highlighting.
export const KEY_TO_CONTROL = {
  model: 'model', config: 'config-text', gpu: 'gpu', gpu_memory_bytes: 'gpu-memory-gb',
  gpu_bandwidth_bytes_per_s: 'gpu-bandwidth-tbs', gpu_dense_tflops: 'gpu-tflops', gpus: 'gpus',
  tensor_parallel: 'tp', pipeline_parallel: 'pp', engine: 'engine', engine_version: 'engine-version',
  'vllm.gpu_memory_utilization': 'gpu-memory-utilization', block_size_tokens: 'block-size',
  'sglang.mem_fraction_static': 'mem-fraction-static',
  'sglang.mamba_full_memory_ratio': 'mamba-full-memory-ratio',
  'tensorrt_llm.free_gpu_memory_fraction': 'free-gpu-memory-fraction', 'llama_cpp.parallel': 'parallel',
  overhead_bytes: 'overhead-gb', kv_dtype: 'kv-dtype', weight_dtype: 'weight-dtype',
  context_tokens: 'context', max_model_len: 'context', batch: 'batch',
  shared_prefix_tokens: 'shared-prefix', prompt_lengths: 'prompt-lengths',
  output_lengths: 'output-lengths', prompt_tokens: 'prompt-tokens', output_tokens: 'output-tokens',
  set: 'set', weights_bytes: 'weights-gb', weights_index: 'index-file',
  'weights_index.metadata.total_size': 'index-file',
  concurrency: 'batch', min_decode_tokens_per_s: 'min-decode-tps', max_ttft_s: 'max-ttft',
  max_gpus: 'max-gpus',
  speculative_config: 'mtp-tokens', 'speculative_config.method': 'mtp-tokens',
  'speculative_config.num_speculative_tokens': 'mtp-tokens',
};

// Request keys without a control of their own; any other field is a path into the config.json.
const UNBOUND_KEY = /^((vllm|sglang|tensorrt_llm|llama_cpp|sweep|prices_usd_per_hour)\..*|schema|command|request|state_dtype|ssm_state_dtype|quantization_config|kv_memory_bytes|kv_dtypes|weight_dtypes|prices_usd_per_hour|)$/;

// State fields whose control is not bound one-to-one (BOUND), by the control.
const CONTROL_FIELDS = {
  model: ['model'], 'config-text': ['config', 'config_name'], 'index-file': ['checkpoint_bytes'],
  'allow-long-context': ['allow_long_context'], 'units-gib': ['units'],
};

/** The state fields behind a control (what a permalink's refused field falls back on). */
export function fieldsOfControl(id) {
  return CONTROL_FIELDS[id] ?? BOUND.filter(([c]) => c === id).map(([, f]) => f);
}

/** The control of a state field, where its notes go; null for fields without one. */
export function controlOfState(field) {
  return BOUND.find(([, f]) => f === field)?.[0]
    ?? Object.keys(CONTROL_FIELDS).find((id) => CONTROL_FIELDS[id].includes(field)) ?? null;
}

/** The control an error's field names: a request key's, else the config text's; null for none. */
export function controlOfField(field) {
  if (KEY_TO_CONTROL[field]) return KEY_TO_CONTROL[field];
  return UNBOUND_KEY.test(field) ? null : 'config-text';
}

export function writeControls() {
  // Only what differs is written: setting an input's value invalidates its layout.
  const set = (el, value) => { if (el.value !== value) el.value = value; };
  writeEngineVersions();
  for (const [id, field] of BOUND) set($(id), shown(field));
  $('gpus').placeholder = `auto: ${page.state.tp * page.state.pp}`;
  set($('model'), page.state.config ? '' : page.state.model);
  $(page.state.units === 'GB' ? 'units-gb' : 'units-gib').checked = true;
  set($('context-slider'), String(Math.log2(page.state.context)));
  $('context-slider').setAttribute('aria-valuetext', `${commas(page.state.context)} tokens`);
  set($('context-label'), commas(page.state.context));
  $('custom-gpu').hidden = page.state.gpu !== 'custom';
  // The engine's knobs as the core lists them (none before the module has loaded).
  const knobs = page.kv ? engineInfo(page.state.engine)?.knobs ?? [] : [];
  for (const el of document.querySelectorAll('[data-knob]')) {
    /** @type {HTMLElement} */ (el).hidden = !knobs.includes(/** @type {HTMLElement} */ (el).dataset.knob);
  }
  $('model-source').textContent = page.state.config
    ? `Using ${page.state.config_name || 'a pasted config.json'} (${commas(page.state.config.length)} characters).`
    : sourceOf(page.state.model);
  $('allow-long-context').checked = page.state.allow_long_context === 1;
  $('index-source').textContent = page.state.checkpoint_bytes > 0
    ? `Weights: the index's total_size, ${commas(page.state.checkpoint_bytes)} bytes.` : '';
  document.documentElement.dataset.theme = page.state.theme;
}

// A field's text in its control; GPUs 0 (what one replica needs) shows empty, its placeholder says how many.
const shown = (field) => (field === 'gpus' && page.state.gpus === 0 ? '' : String(page.state[field]));

// The engine's version lines (the current first, as ''), with what the chosen one changes.
function writeEngineVersions() {
  const versions = page.kv ? engineInfo(page.state.engine)?.versions ?? [] : [];
  const select = /** @type {HTMLSelectElement} */ ($('engine-version'));
  const ids = versions.map((v, i) => (i === 0 ? '' : v.id));
  const filled = `${page.state.engine}:${versions.length}`;  // none listed before the module loads
  if (select.dataset.filled !== filled) {
    select.replaceChildren(...versions.map((v, i) => new Option(v.label, ids[i])));
    select.dataset.filled = filled;
  }
  $('engine-version-field').hidden = versions.length === 0;
  const chosen = versions.find((v, i) => ids[i] === page.state.engine_version) ?? versions[0];
  $('engine-version-note').textContent = chosen ? chosen.differs : '';
}

// The context control's note: the longest sequence the engine accepts for the model.
export function contextLimitText(r) {
  const limit = r.context_limit;
  if (!limit) return '';
  const past = limit.exceeded ? ` — ${commas(r.max_model_len)} is past it` : '';
  return `Model limit: ${commas(limit.tokens)} tokens (${limit.derived_from})${past}.`;
}

// The catalogue id a user's spelling names (id, name, Hugging Face id or alias), as the core
// resolves it; else the core's error, with the closest ids it suggests.
function catalogueModel(spelling) {
  try {
    return { id: page.kv.estimate({ model: spelling, context_tokens: 1 }).model.id };
  } catch (e) {
    if (!(e instanceof KvscopeError)) throw e;
    return { error: e.message };
  }
}

function sourceOf(id) {
  const m = page.catalog.models.find((x) => x.id === id);
  return m ? `${m.name}: config from ${m.source}` : '';
}

/** Reads one control into the state; a bad value marks the control and returns false. */
export function readControl(id, field) {
  const el = $(id);
  const raw = el.value;
  const checked = field === 'gpu_bandwidth_tbs' || field === 'gpu_tflops' || field === 'block_size' ||
    field === 'mem_fraction_static' || field === 'overhead_gb' || field === 'shared_prefix' ||
    field === 'weights_gb' || field === 'min_decode_tps' || field === 'max_ttft' || field === 'gpus'
    ? checkField(field, raw === '' ? '0' : raw) : checkField(field, raw);
  if (!checked.ok) {
    showInputError(checked.message, id);
    return false;
  }
  clearFieldNotes(id);
  page.state[field] = checked.value;
  return true;
}

export function fillModels() {
  for (const m of page.catalog.models) {
    const o = document.createElement('option');
    o.value = m.id;
    o.label = m.name;
    $('model-list').append(o);
  }
}

export function fillCatalogues(dtypes) {
  for (const g of page.catalog.gpus) $('gpu').append(new Option(`${g.name} (${g.memory_marketed})`, g.id));
  for (const e of page.engines) $('engine').append(new Option(e.label, e.id));
  for (const d of dtypes.kv) $('kv-dtype').append(new Option(`${d.name} — ${d.description}`, d.name));
  for (const d of dtypes.weight) $('weight-dtype').append(new Option(`${d.name} — ${d.description}`, d.name));
}

/** Listens to the bound controls, the model box, the context slider, units and the override. */
export function wireControls() {
  for (const [id, field] of BOUND) {
    const el = $(id);
    el.addEventListener(el.tagName === 'SELECT' ? 'change' : 'input', () => {
      if (!readControl(id, field)) return;
      if (field === 'theme') resetCharts();
      if (field === 'engine') page.state.engine_version = '';  // another engine's lines
      update();
    });
  }
  $('model').addEventListener('change', () => {
    if (!page.kv) return;  // the core resolves the spelling
    const found = catalogueModel($('model').value.trim());
    if (found.error) {
      showInputError(`${found.error}; paste its config.json or load it from Hugging Face`, 'model');
      return;
    }
    clearFieldNotes('model');
    page.state.model = found.id;
    page.state.checkpoint_bytes = 0;  // an index belongs to the checkpoint it came with
    page.state.config = '';
    page.state.config_name = '';
    update();
  });
  $('context-slider').addEventListener('input', () => {
    page.state.context = Math.round(2 ** Number($('context-slider').value));
    update();
  });
  // Arrow keys step between powers of two (the slider's quarter steps would land on 92,682).
  $('context-slider').addEventListener('keydown', (e) => {
    const up = e.key === 'ArrowUp' || e.key === 'ArrowRight';
    if (!up && e.key !== 'ArrowDown' && e.key !== 'ArrowLeft') return;
    e.preventDefault();
    const log = Math.log2(page.state.context);
    const next = up ? Math.floor(log) + 1 : Math.ceil(log) - 1;
    page.state.context = 2 ** Math.min(21, Math.max(9, next));
    update();
  });
  for (const radio of document.querySelectorAll('input[name="units"]')) {
    radio.addEventListener('change', () => { page.state.units = radio.value; update(); });
  }
  $('allow-long-context').addEventListener('change', () => {
    page.state.allow_long_context = $('allow-long-context').checked ? 1 : 0;
    update();
  });
}
