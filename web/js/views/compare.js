// Compare: up to four pinned scenarios side by side.
import { h } from '../dom.js';
import { commas, ratio, sequencesThatFit } from '../format.js';
import { engineLabel } from '../state.js';

/**
 * @param {{hash: string, label?: string, report?: any, error?: string}[]} pins
 * @param {any} fmt
 * @param {{onRemove: (i: number) => void, onOpen: (hash: string) => void}} [handlers] the page's
 *   pins can be opened and removed; the widget's labelled scenarios cannot
 */
export function compareView(pins, fmt, handlers) {
  if (pins.length === 0) return h('p', { class: 'muted' }, 'Pin the current scenario to compare up to four side by side.');
  /** @type {Array<[string, (r: import('../kvscope').PlanReport) => string]>} */
  const rows = [
    ['model', (r) => r.model.name],
    ['card', (r) => `${r.parallelism.gpus} × ${r.gpu.name}`],
    ['engine', (r) => engineLabel(r.input.engine, r.engine_version?.id)],
    ['KV dtype', (r) => r.kv_dtype.name],
    ['KV bytes / token', (r) => commas(r.kv_bytes_per_token)],
    ['max_model_len', (r) => commas(r.max_model_len)],
    ['KV per sequence', (r) => fmt.bytes(r.kv_bytes_per_sequence)],
    ['weights per GPU', (r) => fmt.bytes(r.weights_bytes)],
    ['KV pool per GPU', (r) => fmt.bytes(r.kv_pool_bytes)],
    ['sequences that fit', (r) => `${commas(Math.floor(sequencesThatFit(r)))} (${ratio(sequencesThatFit(r))})`],
    ['longest sequence', (r) => (r.max_context === null ? 'unbounded' : commas(r.max_context))],
    ['starts', (r) => (r.starts ? 'yes' : 'no')],
  ];
  return h('table', { class: 'compare', id: 'compare-table' },
    h('thead', {}, h('tr', {}, h('td', {}), pins.map((p, i) => h('th', { scope: 'col' },
      handlers ? [
        h('button', { type: 'button', class: 'link', onclick: () => handlers.onOpen(p.hash) }, p.label ?? `scenario ${i + 1}`), ' ',
        h('button', { type: 'button', class: 'remove', 'aria-label': `remove scenario ${i + 1}`, onclick: () => handlers.onRemove(i) }, '×')]
        : p.label ?? `scenario ${i + 1}`)))),
    h('tbody', {}, rows.map(([label, get]) => h('tr', {},
      h('th', { scope: 'row' }, label),
      pins.map((p) => h('td', {}, p.report ? get(p.report) : p.error))))));
}
