// The card's memory as one stacked bar: each part as wide as its share, named with its size inside
// it when they fit (the table below names every part in the same colour), and marks where the
// engine's share ends (the KV pool's cap) and, when the parts need more than the card, the card.
import { h } from './dom.js';
import { makeReadable, stepTo } from './chart-access.js';

const NAMES = { weights_bytes: 'weights', kv_pool_bytes: 'KV pool', state_pool_bytes: 'state pool',
  engine_reserve_bytes: 'reserve', cuda_graphs_bytes: 'CUDA graphs', not_given_to_the_engine_bytes: 'held back', free_bytes: 'free' };
const nameOf = (key) => NAMES[key] ?? key.replace(/_bytes$/, '').replace(/_/g, ' ');
const sum = (parts) => parts.reduce((total, [, bytes]) => total + bytes, 0);

let shown = '';  // what the bar shows, as JSON: drawn again only when that changes
let drawn;  // the parts drawn, how to say one, the CSV columns, the highlighted part
let live = null;

function highlight(box, i) {
  drawn.current = i;
  box.querySelectorAll('.memory-part').forEach((el, k) => el.classList.toggle('current', k === i));
  return i < 0 ? '' : drawn.say(drawn.parts[i]);
}

// A dashed line across the bar at `at` (0..1) and its label below, on the side with more room.
function mark(at, text) {
  const label = h('p', { class: `memory-mark-label ${at > 0.5 ? 'end' : 'start'}` }, text);
  label.style[at > 0.5 ? 'marginRight' : 'marginLeft'] = `${(at > 0.5 ? 1 - at : at) * 100}%`;
  const line = h('div', { class: 'memory-mark' });
  line.style.left = `${at * 100}%`;
  return { line, label };
}

/**
 * @param {HTMLElement} box @param {Record<string, number>} breakdown bytes per part, per GPU
 * @param {number|null} card the GPU's memory in bytes (null when the KV budget was given)
 */
export function drawMemory(box, breakdown, card, fmt) {
  const key = JSON.stringify([breakdown, card, fmt.units]);
  if (key === shown) return;
  shown = key;
  const all = Object.entries(breakdown);
  const used = sum(all);
  const whole = Math.max(used, card ?? 0);
  const share = (bytes) => `${+(100 * bytes / whole).toFixed(1)}%`;
  const of = card ? 'of the card' : 'of the memory';
  drawn = { parts: all.filter(([, bytes]) => bytes > 0), current: -1,
    say: ([k, bytes]) => `${nameOf(k)}: ${fmt.bytes(bytes)}, ${share(bytes)} ${of}`,
    columns: [{ name: 'part', values: all.map(([k]) => k.replace(/_bytes$/, '')), text: String },
      { name: 'per GPU', unit: 'bytes', values: all.map(([, bytes]) => bytes), text: (b) => fmt.bytes(b) }] };
  live ??= makeReadable(box, { name: 'memory', visible: true, columns: () => drawn.columns,
    onKey: (k) => { const i = stepTo(k, drawn.current, drawn.parts.length); return i === undefined ? undefined : highlight(box, i); },
    onBlur: () => highlight(box, -1) });
  const marks = [];
  const heldBack = all.findIndex(([k, bytes]) => k === 'not_given_to_the_engine_bytes' && bytes > 0);
  if (heldBack > 0) {
    const cap = sum(all.slice(0, heldBack));
    marks.push(mark(cap / whole, `KV pool's cap: the engine's share, ${fmt.bytes(cap)} (${share(cap)} ${of})`));
  }
  if (card && used > card * 1.005) marks.push(  // a sliver over the card is not worth a second mark
    mark(card / whole, `The card ends at ${fmt.bytes(card)}: these parts need ${fmt.bytes(used)}`));
  const bar = h('div', { class: 'memory-bar', onmouseleave: () => highlight(box, -1) },
    drawn.parts.map(([k, bytes], i) => {
      const part = h('div', { class: `memory-part part-${k}`, onmouseenter: () => { live.textContent = highlight(box, i); } },
        h('span', { class: 'memory-label' }, h('span', {}, nameOf(k)), h('span', {}, fmt.bytes(bytes))));
      part.style.width = `${100 * bytes / whole}%`;
      return part;
    }));
  box.setAttribute('aria-label', `Memory per GPU: ${drawn.parts.map(drawn.say).join('; ')}`);
  box.replaceChildren(bar, ...marks.flatMap((m) => [m.line, m.label]));
  live.textContent = '';
}
