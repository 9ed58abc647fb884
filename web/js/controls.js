// The form: the controls bound to state fields, written from the state and read back with their
// checks, the model and catalogue lists, and the context control's note.
import { commas } from './format.js';
import { DEFAULTS, checkField, engineDefaultOf, engineInfo, planRequest } from './state.js';
import { resetCharts } from './charts.js';
import { KvscopeError } from './kvscope-client.js';
import { $, clearFieldNotes, page, showInputError, update } from './page.js';

/**
 * The controls bound to a state field (data-field in index.html): a number in units of data-scale
 * (1e9: GB of a byte field, named by data-unit), and the text an unset (null) field shows (data-unset,
 * default "0"). Found once: the form does not change.
 * @type {HTMLInputElement[]|null}
 */
let bound = null;
const boundControls = () => (bound ??= [...document.querySelectorAll('[data-field]')].map((el) => /** @type {HTMLInputElement} */ (el)));

// Request keys an error can name that have no state field of their own: the field of their control.
const FIELD_OF_KEY = {
  max_model_len: 'context_tokens', concurrency: 'batch', weights_index: 'checkpoint_bytes',
  'weights_index.metadata.total_size': 'checkpoint_bytes',
  speculative_config: 'speculative_config.num_speculative_tokens',
  'speculative_config.method': 'speculative_config.num_speculative_tokens',
};

// Request keys without a control; any other key is a path into the config.json.
const UNBOUND_KEY = /^((vllm|sglang|tensorrt_llm|llama_cpp|ollama|sweep|prices_usd_per_hour)\..*|schema|command|request|state_dtype|ssm_state_dtype|quantization_config|kv_memory_bytes|kv_dtypes|weight_dtypes|prices_usd_per_hour|)$/;

/** The state fields behind a control (what a permalink's refused field falls back on). */
export function fieldsOfControl(id) {
  const el = $(id);
  return el?.dataset.field ? [el.dataset.field] : (el?.dataset.notesFor ?? '').split(' ').filter(Boolean);
}

/** The control of a state field, where its notes go; null for fields without one. */
export function controlOfState(field) {
  const el = boundControls().find((c) => c.dataset.field === field)
    ?? document.querySelector(`[data-notes-for~="${CSS.escape(field)}"]`);
  return el?.id ?? null;
}

/** The control an error's field names: a request key's, else the config text's; null for none. */
export function controlOfField(field) {
  return controlOfState(FIELD_OF_KEY[field] ?? field) ?? (UNBOUND_KEY.test(field) ? null : 'config-text');
}

export function writeControls() {
  const s = page.state;
  writeEngineVersions();
  $('gpus').placeholder = `auto: ${s.tensor_parallel * s.pipeline_parallel}`;
  for (const el of boundControls()) writeControl(el, s[el.dataset.field]);
  writeText($('model'), s.config ? '' : s.model);
  writeText($('context-slider'), String(Math.log2(s.context_tokens)));
  $('context-slider').setAttribute('aria-valuetext', `${commas(s.context_tokens)} tokens`);
  writeText($('context-label'), commas(s.context_tokens));
  $('custom-gpu').hidden = s.gpu !== 'custom';
  // The engine's knobs as the core lists them (none before the module has loaded).
  const knobs = page.kv ? engineInfo(s.engine)?.knobs ?? [] : [];
  for (const label of document.querySelectorAll('label[data-knob]')) {
    /** @type {HTMLElement} */ (label).hidden = !knobs.includes($(label.getAttribute('for')).dataset.field);
  }
  const entry = s.config ? null : page.catalog.models.find((x) => x.id === s.model);
  $('model-source').textContent = s.config
    ? `Using ${s.config_name || 'a pasted config.json'} (${commas(s.config.length)} characters).`
    : sourceOf(entry, s.serve_base);
  $('serve-base-field').hidden = !entry || entry.serve_id === entry.hf_id;
  $('base-id').textContent = entry?.hf_id ?? '';
  $('index-source').textContent = s.checkpoint_bytes > 0
    ? `Weights: the index's total_size, ${commas(s.checkpoint_bytes)} bytes.` : '';
  document.documentElement.dataset.theme = s.theme;
}

/** The engine's defaults a plan ran at, as the placeholders of the knobs left empty. */
export function showEngineDefaults(plan) {
  for (const id of ['gpu-memory-utilization', 'mem-fraction-static', 'num-ctx']) {
    const el = /** @type {HTMLInputElement} */ ($(id));
    const shown = String(engineDefaultOf(plan, el.dataset.field) ?? '');
    if (el.placeholder !== shown) el.placeholder = shown;  // as writeText: only what differs
  }
}

// Only what differs is written: setting an input's value invalidates its layout.
function writeText(/** @type {HTMLInputElement} */ el, text) {
  if (el.value !== text) el.value = text;
}

// A field's value in its control: a number in the control's unit; an unset one as data-unset.
function writeControl(/** @type {HTMLInputElement} */ el, value) {
  if (el.type === 'checkbox') el.checked = value === true;
  else if (el.type === 'radio') el.checked = el.value === value;
  else if (value === null) writeText(el, el.dataset.unset ?? '0');
  else writeText(el, String(el.dataset.scale ? value / Number(el.dataset.scale) : value));
}

// The engine's version lines (the current first, as ''), with what the chosen one changes.
function writeEngineVersions() {
  const versions = page.kv ? engineInfo(page.state.engine)?.versions ?? [] : [];
  const select = /** @type {HTMLSelectElement} */ ($('engine-version'));
  const ids = versions.map((v) => (v.default ? '' : v.id));
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

// Where a catalogue entry's config was read, and which checkpoint launch commands serve when it
// is not its own.
function sourceOf(m, serveBase) {
  if (!m) return '';
  const served = serveBase || m.serve_id === m.hf_id ? '' : ` Launch commands serve its chat checkpoint, ${m.serve_id}.`;
  return `${m.name}: config from ${m.source}.${served}`;
}

/** Reads a bound control into the state; a bad value marks the control and returns false. */
export function readControl(/** @type {HTMLInputElement} */ el) {
  const field = el.dataset.field;
  const unit = el.dataset.unit;
  const checked = checkField(field, el.type === 'checkbox' ? String(el.checked) : el.value,
    { scale: Number(el.dataset.scale ?? 1), as: unit ? `${field} in ${unit}` : field });
  if (!checked.ok) {
    showInputError(checked.message, el.id);
    return false;
  }
  clearFieldNotes(el.id);
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

/** Listens to the bound controls, the model box and the context slider. */
export function wireControls() {
  for (const el of boundControls()) {
    const field = el.dataset.field;
    el.addEventListener(el.tagName === 'SELECT' || el.type === 'checkbox' || el.type === 'radio' ? 'change' : 'input', () => {
      if (!readControl(el)) return;
      if (field === 'context_tokens') page.contextChosen = true;
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
    page.state.checkpoint_bytes = null;  // an index belongs to the checkpoint it came with
    page.state.config = '';
    page.state.config_name = '';
    if (!page.contextChosen) followModelLimit();
    update();
  });
  $('context-slider').addEventListener('input', () => chooseContext(Math.round(2 ** Number($('context-slider').value))));
  // Arrow keys step between powers of two (the slider's quarter steps would land on 92,682).
  $('context-slider').addEventListener('keydown', (e) => {
    const up = e.key === 'ArrowUp' || e.key === 'ArrowRight';
    if (!up && e.key !== 'ArrowDown' && e.key !== 'ArrowLeft') return;
    e.preventDefault();
    const log = Math.log2(page.state.context_tokens);
    const next = up ? Math.floor(log) + 1 : Math.ceil(log) - 1;
    chooseContext(2 ** Math.min(21, Math.max(9, next)));
  });
}

/** The user's context: kept from then on, whatever model they pick. */
export function chooseContext(tokens) {
  page.state.context_tokens = tokens;
  page.contextChosen = true;
  update();
}

// A context the user did not choose is the default within the newly picked model's limit, as the
// engine derives it (the plan's context_limit); a plan the core refuses leaves it, and says why.
function followModelLimit() {
  try {
    const limit = page.kv.plan({ ...planRequest(page.state), max_model_len: null, context_tokens: null }).context_limit?.tokens;
    page.state.context_tokens = Math.min(DEFAULTS.context_tokens, limit || DEFAULTS.context_tokens);
  } catch (e) {
    if (!(e instanceof KvscopeError)) throw e;
  }
}
