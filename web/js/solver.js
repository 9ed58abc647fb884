// "Which GPUs": the core's solver for the page's target (batch sequences of context_tokens), run
// when asked and again a moment after each change while the panel shows an answer; its prices
// editor; and "Open", which turns an option into the page's scenario. The solver is in the full
// module, which the page fetches the first time it solves, not at first load, with the views of
// its answers (full-views.js).
import { KvscopeError, loadKvscope } from './kvscope-client.js';
import { show, showChanged } from './dom.js';
import { commas, makeFormat } from './format.js';
import { engineInfo, engineLabel, toHash } from './state.js';
import { pricesOf, pricesText, solveRequest, stateOfOption } from './solve-request.js';
import { copy } from './sharing.js';
import { $, errorLine, loadFullViews, page, update } from './page.js';

let timer = 0;
let loadingSolver = false;
/** @type {typeof import('./full-views.js') | null} set with page.full */
let views = null;

/**
 * The full module (the solver's) and the views of its answers, fetched on the first call; later
 * calls share them. A failed load rejects with a KvscopeError of one line (the next call tries again).
 * @returns {Promise<import('./kvscope-client.js').KvscopeFull>}
 */
export function loadSolver() {
  return Promise.all([loadKvscope({ full: true }), loadFullViews()]).then(([kv, v]) => {
    views = v;
    page.full = kv;
    return kv;
  }, (e) => {
    throw new KvscopeError('internal_error', '', `The solver did not load: ${String(e?.message ?? e).split('\n')[0]}`);
  });
}

/** The solver's module when the page has it; null before its first load or after a failure. */
export function solverNow() {
  return page.full && !page.full.dead ? page.full : null;
}

function showStatus(text) {
  $('solve-status').textContent = text;
  $('solve-status').hidden = false;
}

// The status paints before the search blocks the thread.
function solveSoon() {
  showStatus('Planning every GPU type…');
  requestAnimationFrame(() => setTimeout(runSolve, 0));
}

/** Solves for the current state and shows the answer (or the error naming the input). */
export function runSolve() {
  clearTimeout(timer);
  if (page.state.solve !== 1) {  // the permalink opens with the answer from now on
    page.state.solve = 1;
    history.replaceState(null, '', `#${toHash(page.state)}`);
  }
  const kv = solverNow();
  if (!kv) {
    if (loadingSolver) return;  // the load solves for the state of the moment it arrives
    loadingSolver = true;
    showStatus('Loading the solver…');
    loadSolver().then(solveSoon, (e) => {
      $('solve-status').hidden = true;
      showChanged($('solve-panel'), [e.message], () => errorLine(e.message));
    }).finally(() => { loadingSolver = false; });
    return;
  }
  $('solve-status').hidden = true;
  let report;
  try {
    report = kv.solve(solveRequest(page.state));
  } catch (e) {
    if (!(e instanceof KvscopeError)) throw e;
    showChanged($('solve-panel'), [e.message], () => errorLine(e.message));
    return;
  }
  showChanged($('solve-panel'), [report, page.state.units], () =>
    views.solveView(report, makeFormat(page.state.units), { onOpen: openOption, onCopy: copy }));
  document.body.dataset.solved = String(report.options.length);
}

/** The target line, and the answer again a moment after a change (it plans hundreds of layouts). */
export function renderSolver() {
  const s = page.state;
  $('solve-target').textContent =
    `The target: ${commas(s.batch)} sequence${s.batch === 1 ? '' : 's'} (Batch) of ${commas(s.context_tokens)} tokens (Context) at once, under ${engineLabel(s.engine, s.engine_version)}.`;
  if (s.solve !== 1) return;
  clearTimeout(timer);
  timer = setTimeout(runSolve, 200);
}

function openOption(o) {
  page.state = stateOfOption(page.state, o, engineInfo(page.state.engine)?.one_server ?? false);
  update();
  $('verdict').scrollIntoView({ block: 'start' });
  $('verdict').focus({ preventScroll: true });
}

/** The prices editor, while its details are open (its view fetched the first time it opens). */
export function renderPrices() {
  if (!$('prices-details').open) return;
  if (!views) {
    loadFullViews().then((v) => { views = v; renderPrices(); },
      (e) => showChanged($('prices-panel'), [e.message], () => errorLine(`The prices editor cannot be shown: ${e.message}.`)));
    return;
  }
  const typed = pricesOf(page.state.prices_usd_per_hour);
  showChanged($('prices-panel'), [page.state.prices_usd_per_hour, page.catalog.gpus.length], () =>
    views.pricesView(page.catalog.gpus, typed, (id, value) => {
      const next = pricesOf(page.state.prices_usd_per_hour);
      const listed = page.catalog.gpus.find((g) => g.id === id)?.usd_per_gpu_hour ?? null;
      if (value === '' || Number(value) === listed) delete next[id];
      else next[id] = Number(value);
      page.state.prices_usd_per_hour = pricesText(next);
      update();
    }));
}

// The browser runs a module's code unoptimized at first: a small solve at idle, once, halves the
// time of the first real one (measured in node: 403 -> 201 ms). It waits for the reader to reach
// for the panel (a pointer over it, a focus in it): the panel is on screen at first load on a wide
// one, and the full module it fetches is not part of the first load.
function warmUp() {
  const idle = globalThis.requestIdleCallback ?? ((fn) => setTimeout(fn, 50));
  const solveSmall = (kv) => {
    try { kv.solve({ model: 'qwen3-8b', concurrency: 8, context_tokens: 8192, gpu: ['l4', 'h100-sxm-80gb'] }); } catch { /* only a warm-up */ }
  };
  const section = $('solve-section');
  const start = () => {
    section.removeEventListener('pointerenter', start);
    section.removeEventListener('focusin', start);
    idle(() => loadSolver().then(solveSmall, () => { /* the first solve says why it did not load */ }));
  };
  section.addEventListener('pointerenter', start);
  section.addEventListener('focusin', start);
}

/** Listens to the solve button (the status paints before the search blocks) and the prices. */
export function wireSolver() {
  warmUp();
  $('solve-run').addEventListener('click', solveSoon);
  $('prices-details').addEventListener('toggle', renderPrices);
}
