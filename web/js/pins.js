// Pinned scenarios: up to four permalinks kept in the state, compared side by side. A pin never
// replaces another: a fifth, or one already pinned, is refused with a line that says why.
import { showChanged } from './dom.js';
import { makeFormat } from './format.js';
import { DEFAULTS, MOST_PINS, parseHash, planRequest, scenarioHash } from './state.js';
import { compareView } from './views/compare.js';
import { $, answerError, page, update } from './page.js';

function pinsFromState() {
  let hashes = [];
  try { hashes = page.state.pins ? JSON.parse(page.state.pins) : []; } catch { hashes = []; }
  if (!Array.isArray(hashes)) hashes = [];
  return hashes.filter((x) => typeof x === 'string').slice(0, MOST_PINS);
}

// Pinned scenarios are fixed: they are recomputed only when the pins or the units change.
export function renderPins() {
  const hashes = pinsFromState();
  // The module's kind too: a pinned config's error is drawn again once the full module reads it.
  showChanged($('compare-panel'), [hashes, page.state.units, page.kv.kind], () => {
    const pinned = hashes.map((hash) => {
      const { state: s, refused } = parseHash(hash);
      if (refused.length) return { hash, error: refused[0].message };
      try { return { hash, report: page.kv.plan(planRequest(s)) }; } catch (e) { return { hash, error: answerError(e) }; }
    });
    return compareView(pinned, makeFormat(page.state.units), {
      onRemove: (i) => { setPins(hashes.filter((_, j) => j !== i)); },
      onOpen: (hash) => { location.hash = hash; },
    });
  });
}

function setPins(hashes, status = '') {
  page.state.pins = hashes.length ? JSON.stringify(hashes) : '';
  $('pin-status').textContent = status;
  update();
}

// Adds `wanted` to the pins, skipping those already there; refuses when they would not all fit.
function addPins(wanted, what) {
  const pins = pinsFromState();
  const fresh = [...new Set(wanted)].filter((h) => !pins.includes(h));
  if (fresh.length === 0) {
    $('pin-status').textContent = `${what} ${wanted.length === 1 ? 'is' : 'are'} already pinned.`;
    return;
  }
  if (pins.length + fresh.length > MOST_PINS) {
    $('pin-status').textContent = `${MOST_PINS} scenarios at most: ${pins.length} pinned, ${what} would add ${fresh.length}. Remove one (×) or Clear first.`;
    return;
  }
  setPins([...pins, ...fresh], fresh.length < wanted.length ? `${wanted.length - fresh.length} of them already pinned.` : '');
}


/** Listens to the pin, examples and clear buttons. */
export function wirePins() {
  $('pin').addEventListener('click', () => addPins([scenarioHash(page.state)], 'This scenario'));
  $('pin-examples').addEventListener('click', () => addPins(['llama-2-7b', 'llama-3.1-8b', 'deepseek-v2-lite']
    .map((model) => scenarioHash({ ...DEFAULTS, model, gpu: 'a100-sxm-80gb', context: 4096, kv_dtype: 'fp16' })),
  'MHA vs GQA vs MLA'));
  $('pins-clear').addEventListener('click', () => setPins([]));
}
