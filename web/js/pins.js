// Pinned scenarios: up to four permalinks kept in the state, compared side by side.
import { showChanged } from './dom.js';
import { makeFormat } from './format.js';
import { DEFAULTS, parseHash, planRequest, toHash } from './state.js';
import { compareView } from './views/compare.js';
import { $, page, update } from './page.js';

function pinsFromState() {
  let hashes = [];
  try { hashes = page.state.pins ? JSON.parse(page.state.pins) : []; } catch { hashes = []; }
  if (!Array.isArray(hashes)) hashes = [];
  return hashes.filter((x) => typeof x === 'string').slice(0, 4);
}

// Pinned scenarios are fixed: they are recomputed only when the pins or the units change.
export function renderPins() {
  const hashes = pinsFromState();
  showChanged($('compare-panel'), [hashes, page.state.units], () => {
    const pinned = hashes.map((hash) => {
      const { state: s, errors } = parseHash(hash);
      if (errors.length) return { hash, error: errors[0] };
      try { return { hash, report: page.kv.plan(planRequest(s)) }; } catch (e) { return { hash, error: e.message }; }
    });
    return compareView(pinned, makeFormat(page.state.units), {
      onRemove: (i) => { setPins(hashes.filter((_, j) => j !== i)); },
      onOpen: (hash) => { location.hash = hash; },
    });
  });
}

function setPins(hashes) {
  page.state.pins = hashes.length ? JSON.stringify(hashes.slice(-4)) : '';
  update();
}

function scenarioHash(s) { return toHash({ ...s, pins: '', units: DEFAULTS.units, theme: DEFAULTS.theme }); }

/** Listens to the pin, examples and clear buttons. */
export function wirePins() {
  $('pin').addEventListener('click', () => setPins([...pinsFromState(), scenarioHash(page.state)]));
  $('pin-examples').addEventListener('click', () => setPins(['llama-2-7b', 'llama-3.1-8b', 'deepseek-v2-lite']
    .map((model) => scenarioHash({ ...DEFAULTS, model, gpu: 'a100-sxm-80gb', context: 4096, kv_dtype: 'fp16' }))));
  $('pins-clear').addEventListener('click', () => setPins([]));
}
