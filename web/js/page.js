// The page's shared state and its error line: what the controller (app.js) and the modules beside
// it (controls, config sources, levers, pins, sharing) read and change; the switch to the full
// module for configs (useFullModule); and the loader of the views the full module's answers need
// (solver.js, explain.js).
import { loadKvscope } from './kvscope-client.js';
import { DEFAULTS } from './state.js';

/**
 * @type {{state: any, kv: any, full: any, catalog: {models: any[], gpus: any[]}, last: any,
 *   whatIfOpen: boolean, embedAs: string, measured: {gpu: string, records: any[], elsewhere: number}|null, measuredFetching: string, engines?: any[], restoring: boolean, sweepsAllowed: boolean}}
 * kv: the module answering the sizing commands: the first one, or the full one once the page
 * has read a config (useFullModule); full: the full module, once the page has solved
 * (solver.js); last: {plan, sweeps, sweepRequest, why} of the current state (sweeps null until a
 * section that shows them is near the viewport); embedAs: the view "Embed this" uses; restoring: a
 * permalink's state has not been answered yet (its refused fields fall back); sweepsAllowed: the
 * first answer has been shown (the sweeps wait for it).
 */
export const page = {
  state: { ...DEFAULTS }, kv: null, full: null, catalog: { models: [], gpus: [] }, last: null,
  whatIfOpen: false, embedAs: 'startup', measured: null, measuredFetching: '', restoring: false,
  sweepsAllowed: false,
  // Whether the user (or the link) chose the context: until then it follows a newly picked
  // model's limit, so a 40K model does not open refused at the default 131,072 tokens.
  contextChosen: false,
};

export const $ = (id) => document.getElementById(id);

/** @type {Promise<import('./kvscope-client.js').KvscopeFull> | null} */
let fullForConfigs = null;
const FULL_MODULE = "kvscope's full module (the config.json reader, every engine and DeepSeek-V4)";


/**
 * The full module as page.kv: the first module reads no config.json, so the first config, what-if
 * or side file fetches the full one, which then answers every request (and the page is drawn
 * again). Meanwhile the status line under the verdict says so; a failed load says why, and the
 * next call tries again.
 * @returns {Promise<import('./kvscope-client.js').KvscopeFull>}
 */
export function useFullModule() {
  if (page.kv?.kind === 'full') return Promise.resolve(page.kv);
  if (!fullForConfigs) {
    const status = $('module-status');
    status.hidden = false;
    status.textContent = `Loading ${FULL_MODULE}…`;
    fullForConfigs = loadKvscope({ full: true }).then((kv) => {
      status.hidden = true;
      page.kv = kv;
      update({ pushHash: false });
      return kv;
    }, (e) => {
      status.textContent = `kvscope's full module did not load: ${String(e?.message ?? e).split('\n')[0]}`;
      throw e;
    }).finally(() => { fullForConfigs = null; });
  }
  return fullForConfigs;
}

/**
 * A core error as a panel shows it; one that needs the full module (a config, a what-if) fetches
 * it (useFullModule, which draws the page again) and says the answer waits for it meanwhile.
 * @param {import('./kvscope-client.js').KvscopeError} e
 */
export function answerError(e) {
  if (e.code !== 'needs_full_module') return e.message;
  useFullModule().catch(() => {});  // the status line under the verdict says why
  return `waiting for ${FULL_MODULE}`;
}

let updateHook = () => {};
/** Recomputes and re-renders from the state (the controller's update, set by setUpdate). */
export function update(options) { updateHook(options); }
export function setUpdate(fn) { updateHook = fn; }

// Errors sit beside the control they name. Two kinds: 'error', what the last change got wrong
// (cleared by the next answer), and 'url', a permalink field refused and back at its default
// (kept until the user changes that control or opens another link).
const fieldNotes = new Map();  // control id -> {message, kind}

/**
 * Shows the error of the last change: beside its control, and above the answers, which are
 * marked as those of the last valid inputs.
 * @param {string} message @param {string|null} [controlId]
 */
export function showInputError(message, controlId) {
  const box = $('input-error');
  box.hidden = false;
  box.textContent = page.last ? `${message}${/[.!?]$/.test(message) ? '' : '.'} The answers below are still those of the last valid inputs.` : message;
  document.body.dataset.error = message;
  if (page.last) document.body.dataset.stale = 'true';
  for (const [id, note] of fieldNotes) if (note.kind === 'error') fieldNotes.delete(id);
  if (controlId && $(controlId)) fieldNotes.set(controlId, { message, kind: 'error' });
  renderFieldNotes();
}

/** Clears the last change's error (the answers are current again); permalink notes stay. */
export function clearInputError() {
  if ($('input-error').hidden) return;  // every answer calls this: nothing to do unless an error shows
  $('input-error').hidden = true;
  delete document.body.dataset.error;
  delete document.body.dataset.stale;
  for (const [id, note] of fieldNotes) if (note.kind === 'error') fieldNotes.delete(id);
  renderFieldNotes();
}

/** Notes a permalink field that was refused and fell back to its default. */
export function showUrlNote(controlId, message) {
  fieldNotes.set(controlId, { message, kind: 'url' });
  renderFieldNotes();
}

/** Forgets the notes of one control (it was changed), or of every control (a new permalink). */
export function clearFieldNotes(controlId = null) {
  if (controlId === null) fieldNotes.clear();
  else fieldNotes.delete(controlId);
  renderFieldNotes();
}

// The notes as <p class="field-error"> after each control (after its label or button row when
// the control sits in one), named by the control's aria-describedby; only noted controls are invalid.
function renderFieldNotes() {
  for (const el of document.querySelectorAll('.field-error')) {
    if (!fieldNotes.has(el.dataset.for)) el.remove();
  }
  for (const el of document.querySelectorAll('[aria-invalid="true"]')) {
    if (!fieldNotes.has(el.id)) {
      el.setAttribute('aria-invalid', 'false');
      const rest = describedBy(el).filter((x) => x !== `${el.id}-error`);
      if (rest.length) el.setAttribute('aria-describedby', rest.join(' '));
      else el.removeAttribute('aria-describedby');
    }
  }
  for (const [id, note] of fieldNotes) {
    const control = $(id);
    if (!control) continue;
    let p = $(`${id}-error`);
    if (!p) {
      p = document.createElement('p');
      p.id = `${id}-error`;
      p.className = 'field-error';
      p.dataset.for = id;
      (control.closest('label, .copy-field, .buttons') ?? control).after(p);
    }
    p.textContent = note.message;
    p.dataset.kind = note.kind;
    control.setAttribute('aria-invalid', 'true');
    control.setAttribute('aria-describedby', [...new Set([...describedBy(control), p.id])].join(' '));
    const details = control.closest('details');
    if (details) details.open = true;  // a note inside a closed section would go unseen
  }
}

const describedBy = (el) => (el.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);

// From the js/ folder's parent, as charts.js's chart-plots.js: the same from a bundle anywhere.
const fullViewsUrl = new URL('../js/full-views.js', import.meta.url);
/** @type {Promise<typeof import('./full-views.js')> | null} */
let fullViews = null;

/**
 * The views of the full module's answers (full-views.js), fetched on the first call; a failed
 * load rejects with a one-line Error and the next call tries again.
 * @returns {Promise<typeof import('./full-views.js')>}
 */
export function loadFullViews() {
  fullViews ??= import(fullViewsUrl.href).catch(() => {
    fullViews = null;
    throw new Error(`the page's code (${fullViewsUrl.href}) did not load`);
  });
  return fullViews;
}

export function errorLine(text) {
  const p = document.createElement('p');
  p.className = 'error-text';
  p.textContent = text;
  return p;
}
