// The page's controller: the only caller of the client besides the modules it wires (controls,
// config sources, levers, pins, sharing). Keeps the state in the URL hash, runs the core, and
// hands the reports to the views.
import { loadKvscope, KvscopeError } from './kvscope-client.js';
import { markScrollingRegions, showChanged } from './dom.js';
import { makeFormat } from './format.js';
import { DEFAULTS, parseHash, planRequest, sweepRequest, toHash, useEngines, whyCacheRequest } from './state.js';
import { cliCommand } from './commands.js';
import { drawMeasured, drawSweeps, resetCharts, setChartLibraryHooks } from './charts.js';
import { efficiencyOf, measuredFor } from './measured.js';
import { measuredSummary, measuredView } from './views/measured.js';
import { verdictView } from './views/verdict.js';
import { bytesPerTokenView, layerGroupsView } from './views/kv.js';
import { capacityView, memoryView, notesView, rooflineView } from './views/capacity.js';
import { whyCacheView } from './views/why-cache.js';
import { shareView } from './views/share.js';
import {
  $, clearFieldNotes, clearInputError, errorLine, page, setUpdate, showInputError, showUrlNote, useFullModule,
} from './page.js';
import {
  chooseContext, controlOfField, controlOfState, contextLimitText, fieldsOfControl, fillCatalogues, fillModels, showEngineDefaults,
  wireControls, writeControls,
} from './controls.js';
import { wireConfigSources } from './config-sources.js';
import { runWhatIf, wireWhatIf } from './levers.js';
import { renderPins, wirePins } from './pins.js';
import { renderPrices, renderSolver, wireSolver } from './solver.js';
import { renderCalibration, wireExplain } from './explain.js';
import { copy, exportReport, renderEmbed, wireSharing } from './sharing.js';

function fmt() { return makeFormat(page.state.units); }

// ---- running the core ---------------------------------------------------------------------

function compute() {
  const plan = page.kv.plan(planRequest(page.state));
  return { plan, sweeps: null, sweepRequest: sweepRequest(page.state), why: whyCache(whyCacheRequest(page.state)) };
}

// The card's memory table and bar and the charts come from a sweep, run only while their sections
// are near the viewport: a control change costs no sweep and no chart redraw for panels out of
// sight (about 4 of a change's 11 ms on a 2-core machine, docs/figures.md).
const sweepSections = () => ['memory-panel', 'chart-concurrency'].map((id) => /** @type {Element} */ ($(id).closest('section')));
const NEAR_PX = 200;  // drawn a little before they scroll into view

// Read when asked, not from the observer's last report: that comes a frame after a layout, and
// the first answer moves the sections down the page.
function nearViewport(/** @type {Element} */ el) {
  const box = el.getBoundingClientRect();
  return box.bottom > -NEAR_PX && box.top < innerHeight + NEAR_PX;
}

function wireSweepSections() {
  const observer = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting) && drawSweepsIfNear()) markScrollingRegions();
  }, { rootMargin: `${NEAR_PX}px 0px` });
  for (const section of sweepSections()) observer.observe(section);
}

/** Draws the sweeps of the answer shown, once, if a section that shows them is near. @returns {boolean} drawn */
function drawSweepsIfNear() {
  const last = page.last;
  if (!last || last.sweeps || !page.sweepsAllowed || !sweepSections().some(nearViewport)) return false;
  try {
    last.sweeps = page.kv.sweep(last.sweepRequest);
  } catch (e) {
    if (!(e instanceof KvscopeError)) throw e;
    showCoreError(e);
    return false;
  }
  const f = fmt();
  const { plan, sweeps } = last;
  showChanged($('memory-panel'), [sweeps.memory_breakdown_per_gpu, plan.gpu.name, page.state.units], () => memoryView(sweeps, f, plan.gpu.name));
  drawSweeps(sweeps, plan, f);
  document.body.dataset.sweeps = 'drawn';
  return true;
}

// The projection count depends on few inputs: computed again only when they change.
let whyMemo = { key: '', value: null };
function whyCache(request) {
  const key = page.kv.kind + JSON.stringify(request);  // a config's: the full module answers it
  if (whyMemo.key !== key) {
    let value;
    try { value = page.kv.estimate(request); } catch (e) { value = e; }
    whyMemo = { key, value };
  }
  return whyMemo.value;
}

/**
 * Recomputes and re-renders everything from the state; errors keep the last good answer, except
 * while a permalink is restored: then the field the core refuses falls back (fallBack).
 * @param {{pushHash?: boolean}} options
 */
function update({ pushHash = true } = {}) {
  const t0 = performance.now();
  writeControls();
  if (pushHash) scheduleHash();
  if (!page.kv) return;
  try {
    page.last = compute();
    document.body.dataset.sweeps = 'pending';
    page.restoring = false;
    clearInputError();
    render();
  } catch (e) {
    if (!(e instanceof KvscopeError)) throw e;
    if (e.code === 'needs_full_module') { useFullModule().catch(() => {}); return; }  // then again
    // A refusal (a model an engine or card does not run) is the link's answer, not a broken field.
    if (page.restoring && e.code !== 'unsupported' && fallBack(e)) { update({ pushHash: true }); return; }
    showCoreError(e);
  }
  document.body.dataset.renderMs = (performance.now() - t0).toFixed(2);
}

// The core's error beside the control it names; after an internal failure, a fresh module.
function showCoreError(/** @type {KvscopeError} */ e) {
  showInputError(e.message, controlOfField(e.field));
  if (e.code === 'internal_error') reload();
}

/**
 * A permalink always yields a working page: the fields behind the control the core's error names
 * go back to their defaults, with a note beside the control (what-ifs first for a config field:
 * an override can be what broke it); with no field to blame, the whole scenario does.
 * @returns {boolean} false when the defaults themselves were refused (nothing left to try)
 */
function fallBack(e) {
  const control = controlOfField(e.field);
  const fields = control === 'config-text' && page.state.set ? ['set'] : fieldsOfControl(control);
  const changed = fields.filter((f) => page.state[f] !== DEFAULTS[f]);
  if (changed.length) {
    for (const f of changed) page.state[f] = DEFAULTS[f];
    showUrlNote(fields[0] === 'set' ? 'set' : control, `Not used from the link: ${e.message}`);
    return true;
  }
  const scenario = { ...DEFAULTS, units: page.state.units, theme: page.state.theme };
  if (Object.keys(scenario).every((k) => scenario[k] === page.state[k])) return false;
  page.state = scenario;
  showPageError([`This link's scenario could not be planned (${e.message}); the page shows the default scenario`]);
  return true;
}

// The URL follows the state a moment after the last change: history.replaceState can take
// milliseconds, and a slider fires on every frame.
let hashTimer = 0;
function scheduleHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(() => history.replaceState(null, '', permalink()), 150);
}

function permalink() {
  return `${location.href.split('#')[0]}#${toHash(page.state)}`;
}

function render() {
  const f = fmt();
  const { plan, why } = page.last;
  const u = page.state.units;
  // "Use N" replaces itself: focus stays on the verdict it changed, not <body>.
  showChanged($('verdict'), [plan], () => verdictView(plan, { onUseContext: (tokens) => { chooseContext(tokens); $('verdict').focus(); } }));
  showChanged($('kv-panel'), [plan, u], () => bytesPerTokenView(plan, f));
  showChanged($('groups-panel'), [plan.layer_groups, plan.kv_layers, plan.model.layers, u], () => layerGroupsView(plan, f));
  showChanged($('capacity-panel'), [plan, u], () => capacityView(plan, f));
  $('context-limit').textContent = contextLimitText(plan);
  showEngineDefaults(plan);
  $('mtp-control').hidden = !(plan.model.draft_layers > 0);
  showChanged($('roofline-panel'), [plan.roofline], () => rooflineView(plan));
  showChanged($('why-panel'), [why instanceof Error ? why.message : why], () => (why instanceof Error ? errorLine(why.message) : whyCacheView(why)));
  showChanged($('notes-panel'), [plan.assumptions, plan.notes], () => notesView(plan));
  const texts = { permalink: permalink(), cli: cliCommand(page.kv, page.state), engine: plan.launch_command,
    unexpressed: plan.launch_unexpressed };
  showChanged($('share-panel'), [texts], () => shareView(texts, { onCopy: copy, onExport: exportReport }));
  renderEmbed();
  renderMeasured();
  drawSweepsIfNear();
  if (page.whatIfOpen) runWhatIf();
  renderSolver();
  renderPrices();
  renderPins();
  renderCalibration();
  markScrollingRegions();  // last: the one layout its widths need is the one the paint needs
  announceWhenResting();
}

// The page's one live region speaks the verdict's headline once the controls rest (a slider fires
// on every frame; the verdict element itself is replaced on each change).
let announceTimer = 0;
function announceWhenResting() {
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    const text = $('verdict-headline')?.textContent ?? '';
    if ($('verdict-live').textContent !== text) $('verdict-live').textContent = text;
  }, 600);
}

// Measured records of the chosen GPU (none for a custom card) and the calibrated estimate; a
// GPU's records are fetched the first time it is chosen (after the first answer).
function renderMeasured() {
  if (!page.measured || !page.last) return;
  if (page.measured.gpu !== page.state.gpu) {
    fetchMeasured();
    return;
  }
  const plan = page.last.plan;
  const { records, elsewhere } = page.measured;
  const calibration = { efficiency: efficiencyOf(records), device: records[0]?.device.name ?? '',
    decode_s: plan.roofline.available ? plan.roofline.decode.time_s : null,
    cited: plan.roofline.available ? plan.roofline.decode_calibrated : null };
  $('measured-summary').textContent = measuredSummary(records, plan.gpu.name);
  showChanged($('measured-panel'), [records.length, elsewhere, plan.gpu.name, calibration], () =>
    measuredView(records, plan.gpu.name, elsewhere, calibration));
  $('chart-measured').hidden = records.length === 0;
  if (records.length) drawMeasured(records);
}

function fetchMeasured() {
  const gpu = page.state.gpu;
  if (page.measuredFetching === gpu) return;
  page.measuredFetching = gpu;
  measuredFor(gpu).then((m) => {
    if (page.state.gpu !== gpu) return;  // another GPU was chosen meanwhile: its own fetch renders
    page.measured = { gpu, ...m };
    renderMeasured();
    document.body.dataset.measured = String(m.records.length);
  });
}

// An internal failure drops the instance; a fresh one answers the next change.
async function reload() {
  page.kv = null;
  page.kv = await loadKvscope();
  update({ pushHash: false });
}

// The state of the URL's hash; fields that fail their check keep their defaults, noted beside
// their controls (fields without one, above the page).
function restore() {
  const { state: s, refused } = parseHash(location.hash);
  page.state = s;
  page.contextChosen = s.context_tokens !== DEFAULTS.context_tokens;
  if (s.config) $('config-text').value = s.config;  // the link's config, there to edit
  page.restoring = true;
  clearFieldNotes();
  const unplaced = [];
  for (const r of refused) {
    const control = controlOfState(r.field);
    if (control) showUrlNote(control, `Not used from the link: ${r.message}`);
    else unplaced.push(r.message);
  }
  showPageError(unplaced);
}

function showPageError(messages) {
  showPageLine(messages.length ? `${messages.join('; ')}. Those fields keep their defaults.` : '');
}

// The line above the page for what no control can show (hidden when empty).
function showPageLine(text) {
  const box = $('page-error');
  box.hidden = !text;
  box.textContent = text;
}

async function main() {
  performance.mark('kvscope:main');  // the first answer's phases (scripts/bench-page.mjs)
  const loading = loadKvscope();  // fetch and compile the core while the page is wired up
  setUpdate(update);
  restore();
  wireControls();
  wireConfigSources();
  wireWhatIf();
  wirePins();
  wireSharing();
  wireSolver();
  wireExplain();
  wireSweepSections();
  window.addEventListener('hashchange', () => { restore(); update({ pushHash: false }); });
  window.addEventListener('resize', markScrollingRegions);
  document.addEventListener('toggle', markScrollingRegions, true);  // a section opened shows its tables
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { resetCharts(); update({ pushHash: false }); });
  writeControls();
  performance.mark('kvscope:wired');
  try {
    page.kv = await loading;
    performance.mark('kvscope:module');
  } catch (e) {
    $('loading')?.remove();
    showPageLine(`The WebAssembly core did not load: ${e.message}`);
    return;
  }
  page.catalog.gpus = page.kv.gpus().gpus;
  page.engines = page.kv.engines().engines;
  useEngines({ engines: page.engines });
  fillCatalogues(page.kv.dtypes());
  performance.mark('kvscope:catalogues');
  $('loading')?.remove();  // loaded, whether the first answer is a plan or a refusal
  update({ pushHash: false });  // the answers first; the sweeps and charts a moment later
  document.body.dataset.readyMs = performance.now().toFixed(1);  // since navigation (bench-page)
  // The chart library is fetched with the first chart drawn (data-charts: for the tests).
  setChartLibraryHooks({
    loaded: () => {
      if (document.body.dataset.charts === 'failed') showPageLine('');  // drawn on a later try
      document.body.dataset.charts = 'loaded';
    },
    failed: (e) => {
      showPageLine(`The charts cannot be drawn: ${e.message}.`);
      document.body.dataset.charts = 'failed';
    },
  });
  // The model list (every config.json, for the search box) and the sweeps after the first answer.
  setTimeout(() => {
    page.catalog.models = page.kv.models().models;
    fillModels();
    page.sweepsAllowed = true;
    update({ pushHash: false });  // and the sweeps, if their sections are near
    document.body.dataset.ready = 'true';
    fetchMeasured();
  }, 0);
}

main();
