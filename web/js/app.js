// The page's controller: the only caller of the client. Reads the controls into the state, keeps
// the state in the URL hash, runs the core, and hands the reports to the views.
import { loadKvscope, KvscopeError } from './kvscope-client.js';
import { show, showChanged } from './dom.js';
import { commas, makeFormat } from './format.js';
import {
  DEFAULTS, ENGINES, WIDGET_VIEWS, checkField, indexTotalSize, parseHash, planOptions, quote,
  sweepOptions, toHash, whyCacheOptions,
} from './state.js';
import { cliCommand, embedSnippets, engineCommand, toCsv, toMarkdown } from './commands.js';
import { drawMeasured, drawSweeps, drawWhatIf, resetCharts } from './charts.js';
import { efficiencyOf, loadMeasured, recordsFor } from './measured.js';
import { measuredView } from './views/measured.js';
import { verdictView } from './views/verdict.js';
import { bytesPerTokenView, layerGroupsView } from './views/kv.js';
import { capacityView, memoryView, notesView, rooflineView } from './views/capacity.js';
import { whatIfView } from './views/what-if.js';
import { compareView } from './views/compare.js';
import { whyCacheView } from './views/why-cache.js';
import { embedView, shareView } from './views/share.js';

const $ = (id) => document.getElementById(id);

// Controls bound one-to-one to state fields: [element id, field].
const BOUND = [
  ['gpu', 'gpu'], ['gpu-memory-gb', 'gpu_memory_gb'], ['gpu-bandwidth-tbs', 'gpu_bandwidth_tbs'],
  ['gpu-tflops', 'gpu_tflops'], ['gpus', 'gpus'], ['tp', 'tp'], ['pp', 'pp'], ['engine', 'engine'],
  ['gpu-memory-utilization', 'gpu_memory_utilization'], ['block-size', 'block_size'],
  ['mem-fraction-static', 'mem_fraction_static'], ['mamba-full-memory-ratio', 'mamba_full_memory_ratio'], ['free-gpu-memory-fraction', 'free_gpu_memory_fraction'],
  ['parallel', 'parallel'], ['overhead-gb', 'overhead_gb'], ['kv-dtype', 'kv_dtype'],
  ['weight-dtype', 'weight_dtype'], ['context', 'context'], ['batch', 'batch'],
  ['shared-prefix', 'shared_prefix'], ['prompt-lengths', 'prompt_lengths'],
  ['output-lengths', 'output_lengths'], ['prompt-tokens', 'prompt_tokens'],
  ['output-tokens', 'output_tokens'], ['theme', 'theme'], ['set', 'set'], ['weights-gb', 'weights_gb'],
  ['mtp-tokens', 'mtp_tokens'],
];
// CLI flags and core fields that name a control, for error highlighting.
const FLAG_TO_CONTROL = {
  '--model': 'model', '--config': 'config-text', '--gpu': 'gpu', '--gpu-memory': 'gpu-memory-gb',
  '--gpu-bandwidth': 'gpu-bandwidth-tbs', '--gpu-tflops': 'gpu-tflops', '--gpus': 'gpus', '--tp': 'tp',
  '--pp': 'pp', '--engine': 'engine', '--gpu-memory-utilization': 'gpu-memory-utilization',
  '--block-size': 'block-size', '--mem-fraction-static': 'mem-fraction-static',
  '--mamba-full-memory-ratio': 'mamba-full-memory-ratio',
  '--free-gpu-memory-fraction': 'free-gpu-memory-fraction', '--parallel': 'parallel',
  '--overhead': 'overhead-gb', '--kv-dtype': 'kv-dtype', '--weight-dtype': 'weight-dtype',
  '--context': 'context', '--max-model-len': 'context', '--batch': 'batch',
  '--shared-prefix': 'shared-prefix', '--prompt-lengths': 'prompt-lengths',
  '--output-lengths': 'output-lengths', '--prompt-tokens': 'prompt-tokens', '--output-tokens': 'output-tokens',
  '--set': 'set', '--weights-bytes': 'weights-gb', '--weights-index': 'index-file',
  'speculative_config.method': 'mtp-tokens', 'speculative_config.num_speculative_tokens': 'mtp-tokens',
};

let state = { ...DEFAULTS };
let kv = null;          // the client
let catalog = { models: [], gpus: [] };
let last = null;        // {plan, sweeps, why} of the current state
let whatIfOpen = false;
let embedAs = 'startup';  // the view the "Embed this" snippets use
let measuredRecords = null;  // kvbench's records, once loaded

function fmt() { return makeFormat(state.units); }

// ---- state <-> controls -------------------------------------------------------------------

function writeControls() {
  // Only what differs is written: setting an input's value invalidates its layout.
  const set = (el, value) => { if (el.value !== value) el.value = value; };
  for (const [id, field] of BOUND) set($(id), String(state[field]));
  set($('model'), state.config ? '' : state.model);
  $(state.units === 'GB' ? 'units-gb' : 'units-gib').checked = true;
  set($('context-slider'), String(Math.log2(state.context)));
  set($('context-label'), commas(state.context));
  $('custom-gpu').hidden = state.gpu !== 'custom';
  for (const el of document.querySelectorAll('[data-knob]')) {
    el.hidden = !ENGINES[state.engine].knobs.includes(el.dataset.knob);
  }
  $('model-source').textContent = state.config
    ? `Using ${state.config_name || 'a pasted config.json'} (${commas(state.config.length)} characters).`
    : sourceOf(state.model);
  $('allow-long-context').checked = state.allow_long_context === 1;
  $('index-source').textContent = state.checkpoint_bytes > 0
    ? `Weights: the index's total_size, ${commas(state.checkpoint_bytes)} bytes.` : '';
  document.documentElement.dataset.theme = state.theme;
}

/** The catalogue entry a user's spelling names: its id, Hugging Face id, alias or name. */
function findModel(spelling) {
  const wanted = spelling.trim().toLowerCase();
  const repo = (id) => id.split('/').pop().toLowerCase();
  return catalog.models.find((m) => [m.id, m.name, m.hf_id, ...(m.aliases ?? [])]
    .some((x) => x && (x.toLowerCase() === wanted || (x.includes('/') && repo(x) === wanted))));
}

// The context control's note: the longest sequence the engine accepts for the model.
function contextLimitText(r) {
  const limit = r.context_limit;
  if (!limit) return '';
  const past = limit.exceeded ? ` — ${commas(r.max_model_len)} is past it` : '';
  return `Model limit: ${commas(limit.tokens)} tokens (${limit.derived_from})${past}.`;
}

function sourceOf(id) {
  const m = catalog.models.find((x) => x.id === id);
  return m ? `${m.name}: config from ${m.source}` : '';
}

/** Reads one control into the state; a bad value marks the control and returns false. */
function readControl(id, field) {
  const el = $(id);
  const raw = el.value;
  const checked = field === 'gpu_bandwidth_tbs' || field === 'gpu_tflops' || field === 'block_size' ||
    field === 'mem_fraction_static' || field === 'overhead_gb' || field === 'shared_prefix' ||
    field === 'weights_gb'
    ? checkField(field, raw === '' ? '0' : raw) : checkField(field, raw);
  el.setAttribute('aria-invalid', String(!checked.ok));
  if (!checked.ok) {
    showInputError(checked.message, id);
    return false;
  }
  state[field] = checked.value;
  return true;
}

// ---- running the core ---------------------------------------------------------------------

function compute(withSweeps) {
  const plan = kv.plan(planOptions(state));
  const sweeps = withSweeps ? kv.sweep(sweepOptions(state)) : null;
  return { plan, sweeps, why: whyCache(whyCacheOptions(state)) };
}

// The projection count depends on few inputs: computed again only when they change.
let whyMemo = { key: '', value: null };
function whyCache(options) {
  const key = JSON.stringify(options);
  if (whyMemo.key !== key) {
    let value;
    try { value = kv.estimate(options); } catch (e) { value = e; }
    whyMemo = { key, value };
  }
  return whyMemo.value;
}

/** Recomputes and re-renders everything from the state; errors keep the last good answer. */
/** @param {{pushHash?: boolean, sweeps?: boolean}} options sweeps: false draws the charts later */
export function update({ pushHash = true, sweeps = true } = {}) {
  const t0 = performance.now();
  writeControls();
  if (pushHash) scheduleHash();
  if (!kv) return;
  try {
    last = compute(sweeps);
    clearInputError();
    render();
  } catch (e) {
    if (!(e instanceof KvscopeError)) throw e;
    showInputError(e.message, FLAG_TO_CONTROL[e.field] ?? (e.field.startsWith('--') ? null : 'config-text'));
    if (e.code === 'internal_error') reload();
  }
  document.body.dataset.renderMs = (performance.now() - t0).toFixed(2);
}

// The URL follows the state a moment after the last change: history.replaceState can take
// milliseconds, and a slider fires on every frame.
let hashTimer = 0;
function scheduleHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(() => history.replaceState(null, '', permalink()), 150);
}

function permalink() {
  return `${location.href.split('#')[0]}#${toHash(state)}`;
}

function render() {
  const f = fmt();
  const { plan, sweeps, why } = last;
  const u = state.units;
  showChanged($('verdict'), [plan], () => verdictView(plan, { onUseContext: (tokens) => { state.context = tokens; update(); } }));
  showChanged($('kv-panel'), [plan, u], () => bytesPerTokenView(plan, f));
  showChanged($('groups-panel'), [plan.layer_groups, plan.kv_layers, plan.model.layers, u], () => layerGroupsView(plan, f));
  if (sweeps) showChanged($('memory-panel'), [sweeps.memory_breakdown_per_gpu, plan.gpu.name, u], () => memoryView(sweeps, f, plan.gpu.name));
  showChanged($('capacity-panel'), [plan, u], () => capacityView(plan, f));
  $('context-limit').textContent = contextLimitText(plan);
  $('mtp-control').hidden = !(plan.model.draft_layers > 0);
  showChanged($('roofline-panel'), [plan.roofline], () => rooflineView(plan));
  showChanged($('why-panel'), [why instanceof Error ? why.message : why], () => (why instanceof Error ? errorLine(why.message) : whyCacheView(why)));
  showChanged($('notes-panel'), [plan.assumptions, plan.notes], () => notesView(plan));
  const texts = { permalink: permalink(), cli: cliCommand(state), engine: engineCommand(state, plan, hfIdOf(state)) };
  showChanged($('share-panel'), [texts], () => shareView(texts, { onCopy: copy, onExport: exportReport }));
  renderEmbed();
  renderMeasured();
  if (sweeps) drawSweeps(sweeps, plan, f);
  if (whatIfOpen) runWhatIf();
  renderPins();
}

// Measured records for the chosen GPU (else this project's CPUs) and the calibrated estimate.
function renderMeasured() {
  if (!measuredRecords || !last) return;
  const plan = last.plan;
  const records = recordsFor(measuredRecords, state.gpu);
  const efficiency = efficiencyOf(records.gpu);
  const calibration = { efficiency, device: records.gpu[0]?.device.name ?? '',
    decode_s: plan.roofline.available ? plan.roofline.decode.time_s : null };
  showChanged($('measured-panel'), [records.gpu.length, records.cpu.length, plan.gpu.name, calibration], () =>
    measuredView(records, plan.gpu.name, calibration));
  drawMeasured(records.gpu.length ? records.gpu : records.cpu);
}

// The snippets are made only while their panel is open.
function renderEmbed() {
  if (!$('embed-details').open) return;
  const snippets = { view: embedAs, ...embedSnippets(state, embedAs, new URL('./', location.href).href) };
  showChanged($('embed-panel'), [snippets], () => embedView(snippets, {
    onView: (view) => { embedAs = view; renderEmbed(); }, onCopy: copy }, WIDGET_VIEWS));
}

function errorLine(text) {
  const p = document.createElement('p');
  p.className = 'error-text';
  p.textContent = text;
  return p;
}

function hfIdOf(s) {
  if (s.config) return s.config_name;
  return catalog.models.find((m) => m.id === s.model)?.hf_id ?? '';
}

function showInputError(message, controlId) {
  const box = $('input-error');
  box.hidden = false;
  box.textContent = message;
  document.body.dataset.error = message;
  if (controlId && $(controlId)) $(controlId).setAttribute('aria-invalid', 'true');
}

function clearInputError() {
  $('input-error').hidden = true;
  delete document.body.dataset.error;
  for (const el of document.querySelectorAll('[aria-invalid="true"]')) el.setAttribute('aria-invalid', 'false');
}

// An internal failure drops the instance; a fresh one answers the next change.
async function reload() {
  kv = null;
  kv = await loadKvscope();
  update({ pushHash: false });
}

// ---- what if, compare ---------------------------------------------------------------------

function levers() {
  const g = last.plan.layer_groups.find((x) => x.kv_heads > 0);
  const list = [
    { label: 'fp8 KV cache', short: 'fp8 KV', detail: '--kv-dtype fp8', change: { kv_dtype: 'fp8' } },
    g && g.kv_heads > 1 ? { label: 'half the KV heads', short: '½ KV heads', detail: `${g.kv_heads} → ${Math.ceil(g.kv_heads / 2)}`, set: [`num_key_value_heads=${Math.ceil(g.kv_heads / 2)}`] } : null,
    { label: 'a 4,096-token sliding window', short: '4K window', detail: 'every layer', set: ['sliding_window=4096', 'use_sliding_window=true', 'max_window_layers=0'] },
    { label: '4-bit weights', short: '4-bit weights', detail: '--weight-dtype int4', change: { weight_dtype: 'int4' } },
    state.engine === 'vllm' ? { label: 'gpu_memory_utilization 0.95', short: 'utilization 0.95', detail: `from ${state.gpu_memory_utilization}`, change: { gpu_memory_utilization: 0.95 } } : null,
    state.engine === 'sglang' ? { label: 'mem_fraction_static +0.05', short: 'mem fraction +0.05', detail: '', change: { mem_fraction_static: Math.min(1, (state.mem_fraction_static || 0.88) + 0.05) } } : null,
    state.engine === 'tensorrt-llm' ? { label: 'free_gpu_memory_fraction 0.95', short: 'free fraction 0.95', detail: '', change: { free_gpu_memory_fraction: 0.95 } } : null,
    { label: 'tensor parallel × 2', short: 'TP × 2', detail: `${state.tp} → ${state.tp * 2} GPUs per replica`, change: { tp: state.tp * 2, gpus: Math.max(state.gpus, state.tp * 2 * state.pp) } },
  ];
  return list.filter(Boolean);
}

function runWhatIf() {
  whatIfOpen = true;
  const results = levers().map((lever) => {
    try {
      return { ...lever, report: kv.plan(planOptions({ ...state, ...(lever.change ?? {}) }, lever.set ?? [])) };
    } catch (e) {
      if (!(e instanceof KvscopeError)) throw e;
      return { ...lever, error: e.message };
    }
  });
  show($('what-if-panel'), whatIfView(results, last.plan));
  $('chart-what-if').hidden = false;
  drawWhatIf(results, last.plan);
}

function pinsFromState() {
  let hashes = [];
  try { hashes = state.pins ? JSON.parse(state.pins) : []; } catch { hashes = []; }
  if (!Array.isArray(hashes)) hashes = [];
  return hashes.filter((x) => typeof x === 'string').slice(0, 4);
}

// Pinned scenarios are fixed: they are recomputed only when the pins or the units change.
function renderPins() {
  const hashes = pinsFromState();
  showChanged($('compare-panel'), [hashes, state.units], () => {
    const pinned = hashes.map((hash) => {
      const { state: s, errors } = parseHash(hash);
      if (errors.length) return { hash, error: errors[0] };
      try { return { hash, report: kv.plan(planOptions(s)) }; } catch (e) { return { hash, error: e.message }; }
    });
    return compareView(pinned, fmt(), {
      onRemove: (i) => { setPins(hashes.filter((_, j) => j !== i)); },
      onOpen: (hash) => { location.hash = hash; },
    });
  });
}

function setPins(hashes) {
  state.pins = hashes.length ? JSON.stringify(hashes.slice(-4)) : '';
  update();
}

function scenarioHash(s) { return toHash({ ...s, pins: '', units: DEFAULTS.units, theme: DEFAULTS.theme }); }

// ---- config.json sources ------------------------------------------------------------------

function useConfig(text, name) {
  if (text.length > (1 << 20)) { showInputError('config.json: larger than 1 MiB', 'config-text'); return; }
  try {
    kv.importConfig(text, name);
  } catch (e) {
    if (!(e instanceof KvscopeError)) throw e;
    showInputError(e.message, 'config-text');
    return;
  }
  state.config = text;
  state.config_name = name;
  update();
}

async function loadFromHuggingFace() {
  const id = $('hf-id').value.trim();
  const checked = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}\/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/.test(id);
  if (!checked) { showInputError(`Hugging Face id: expected org/name, got ${quote(id)}`, 'hf-id'); return; }
  const url = `https://huggingface.co/${id}/resolve/main/config.json`;
  let response;
  try {
    response = await fetch(url, { credentials: 'omit', referrerPolicy: 'no-referrer', mode: 'cors' });
  } catch {
    showInputError(`Hugging Face: could not reach huggingface.co (offline or blocked); paste the config.json instead`, 'hf-id');
    return;
  }
  if (response.status === 401 || response.status === 403) {
    showInputError(`Hugging Face: ${quote(id)} is gated or private (HTTP ${response.status}); accept its licence on huggingface.co, then paste its config.json`, 'hf-id');
    return;
  }
  if (!response.ok) { showInputError(`Hugging Face: ${quote(id)} has no config.json (HTTP ${response.status})`, 'hf-id'); return; }
  const text = await response.text();
  $('config-text').value = text;
  state.checkpoint_bytes = await fetchIndexTotal(id);
  useConfig(text, id);
}

// The repository's model.safetensors.index.json beside its config.json (same host, same click);
// 0 when it has none (a single-file checkpoint) or it cannot be read.
async function fetchIndexTotal(id) {
  try {
    const response = await fetch(`https://huggingface.co/${id}/resolve/main/model.safetensors.index.json`,
      { credentials: 'omit', referrerPolicy: 'no-referrer', mode: 'cors' });
    if (!response.ok) return 0;
    const total = indexTotalSize(await response.text());
    return total.ok ? total.value : 0;
  } catch {
    return 0;
  }
}

function useIndex(text) {
  const total = indexTotalSize(text);
  if (!total.ok) { showInputError(total.message, 'index-file'); return; }
  state.checkpoint_bytes = total.value;
  update();
}

// ---- share, export ------------------------------------------------------------------------

async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Select and copy';
  }
  setTimeout(() => { button.textContent = 'Copy'; }, 1500);
}

function exportReport(kind) {
  const r = last.plan;
  const [body, type, ext] = kind === 'json' ? [JSON.stringify(r, null, 2), 'application/json', 'json']
    : kind === 'csv' ? [toCsv(r), 'text/csv', 'csv'] : [toMarkdown(r), 'text/markdown', 'md'];
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([body], { type }));
  a.download = `kvscope-${(r.model.id || 'config').replace(/[^A-Za-z0-9._-]/g, '_')}.${ext}`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// ---- wiring -------------------------------------------------------------------------------

function fillModels() {
  for (const m of catalog.models) {
    const o = document.createElement('option');
    o.value = m.id;
    o.label = m.name;
    $('model-list').append(o);
  }
}

function fillCatalogues(dtypes) {
  for (const g of catalog.gpus) $('gpu').append(new Option(`${g.name} (${g.memory_marketed})`, g.id));
  for (const [id, e] of Object.entries(ENGINES)) $('engine').append(new Option(e.label, id));
  for (const d of dtypes.kv) $('kv-dtype').append(new Option(`${d.name} — ${d.description}`, d.name));
  for (const d of dtypes.weight) $('weight-dtype').append(new Option(`${d.name} — ${d.description}`, d.name));
}

function wire() {
  for (const [id, field] of BOUND) {
    const el = $(id);
    el.addEventListener(el.tagName === 'SELECT' ? 'change' : 'input', () => {
      if (!readControl(id, field)) return;
      if (field === 'theme') resetCharts();
      update();
    });
  }
  $('model').addEventListener('change', () => {
    const id = $('model').value.trim();
    const entry = findModel(id);
    if (!entry) {
      showInputError(`model: ${quote(id)} is not in the catalogue; paste its config.json or load it from Hugging Face`, 'model');
      return;
    }
    state.model = entry.id;
    state.checkpoint_bytes = 0;  // an index belongs to the checkpoint it came with
    state.config = '';
    state.config_name = '';
    update();
  });
  $('context-slider').addEventListener('input', () => {
    state.context = Math.round(2 ** Number($('context-slider').value));
    update();
  });
  for (const radio of document.querySelectorAll('input[name="units"]')) {
    radio.addEventListener('change', () => { state.units = radio.value; update(); });
  }
  $('use-config').addEventListener('click', () => useConfig($('config-text').value, 'pasted config.json'));
  $('config-file').addEventListener('change', async () => {
    const file = $('config-file').files[0];
    if (file) useConfig(await file.text(), file.name);
  });
  $('config-text').addEventListener('drop', async (event) => {
    const file = event.dataTransfer?.files?.[0];
    if (!file) return;
    event.preventDefault();
    const text = await file.text();
    $('config-text').value = text;
    useConfig(text, file.name);
  });
  $('clear-config').addEventListener('click', () => { state.config = ''; state.config_name = ''; update(); });
  $('index-file').addEventListener('change', async () => {
    const file = $('index-file').files[0];
    if (file) useIndex(await file.text());
  });
  $('clear-index').addEventListener('click', () => { state.checkpoint_bytes = 0; update(); });
  $('allow-long-context').addEventListener('change', () => {
    state.allow_long_context = $('allow-long-context').checked ? 1 : 0;
    update();
  });
  $('hf-load').addEventListener('click', loadFromHuggingFace);
  $('what-if-run').addEventListener('click', runWhatIf);
  $('embed-details').addEventListener('toggle', renderEmbed);
  $('pin').addEventListener('click', () => setPins([...pinsFromState(), scenarioHash(state)]));
  $('pin-examples').addEventListener('click', () => setPins(['llama-2-7b', 'llama-3.1-8b', 'deepseek-v2-lite']
    .map((model) => scenarioHash({ ...DEFAULTS, model, gpu: 'a100-sxm-80gb', context: 4096, kv_dtype: 'fp16' }))));
  $('pins-clear').addEventListener('click', () => setPins([]));
  window.addEventListener('hashchange', () => { restore(); update({ pushHash: false }); });
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { resetCharts(); update({ pushHash: false }); });
}

function restore() {
  const { state: s, errors } = parseHash(location.hash);
  state = s;
  const page = $('page-error');
  page.hidden = errors.length === 0;
  page.textContent = errors.length ? `${errors.join('; ')}. Those fields keep their defaults.` : '';
}

async function main() {
  const loading = loadKvscope();  // fetch and compile the core while the page is wired up
  restore();
  wire();
  writeControls();
  try {
    kv = await loading;
  } catch (e) {
    $('loading')?.remove();
    const page = $('page-error');
    page.hidden = false;
    page.textContent = `The WebAssembly core did not load: ${e.message}`;
    return;
  }
  catalog.gpus = kv.gpus().gpus;
  fillCatalogues(kv.dtypes());
  update({ pushHash: false, sweeps: false });  // the answers first; the charts a moment later
  document.body.dataset.readyMs = performance.now().toFixed(1);  // since navigation (bench-page)
  // The charts and the model list (every config.json, for the search box) after the first answer.
  setTimeout(() => {
    catalog.models = kv.models().models;
    fillModels();
    update({ pushHash: false });  // the engine command wants the model's Hugging Face id
    document.body.dataset.ready = 'true';
    loadMeasured().then((records) => { measuredRecords = records; renderMeasured(); document.body.dataset.measured = String(records.length); });
  }, 0);
}

main();
