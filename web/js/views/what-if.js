// "What if": each lever the articles name, applied alone to the current scenario, ranked by the
// sequences it adds at the chosen context.
import { h } from '../dom.js';
import { commas, ratio } from '../format.js';

/**
 * @param {{label: string, detail: string, report?: any, error?: string}[]} results
 * @param {import('../kvscope').PlanReport} base the current plan report
 */
export function whatIfView(results, base) {
  const ranked = [...results].sort((a, b) => gain(b, base) - gain(a, base));
  return h('table', { class: 'what-if', id: 'what-if-table' },
    h('caption', {}, `Each lever alone, from ${ratio(base.max_concurrency)} sequences of ${commas(base.max_model_len)} tokens`),
    h('thead', {}, h('tr', {}, ['lever', 'sequences that fit', 'change', 'longest sequence', 'starts'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ranked.map((x) => h('tr', {},
      h('th', { scope: 'row' }, x.label, h('span', { class: 'exact' }, ` ${x.detail}`)),
      x.report ? [
        h('td', {}, ratio(x.report.max_concurrency)),
        h('td', {}, change(x.report.max_concurrency, base.max_concurrency)),
        h('td', {}, `${commas(x.report.max_context)} tokens`),
        h('td', {}, x.report.starts ? 'yes' : 'no')]
        : h('td', { colspan: 4, class: 'muted' }, x.error)))));
}

function gain(x, base) {
  return x.report ? x.report.max_concurrency - base.max_concurrency : -Infinity;
}

function change(value, base) {
  if (base === 0) return value > 0 ? `+${ratio(value)}` : '0';
  const pct = (value / base - 1) * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(0)}%`;
}
