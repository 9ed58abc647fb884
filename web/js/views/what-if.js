// "What if": the deployment's knobs each alone, ranked by the sequences each adds at the chosen
// context; the smallest layout of this GPU type that meets the target; and, apart and never
// ranked with them, what a different model (the articles' levers) would hold.
import { h } from '../dom.js';
import { commas, ratio, sequencesThatFit } from '../format.js';

/**
 * @param {{serving: any[], model: any[], target: {option?: any, met?: boolean, error?: string, loading?: boolean}|null}} levers
 * @param {import('../kvscope').PlanReport} base the current plan report
 * @param {(option: import('../kvscope').SolveOption) => void} onOpen
 */
export function whatIfView({ serving, model, target }, base, onOpen) {
  const ranked = [...serving].sort((a, b) => gain(b, base) - gain(a, base));
  return h('div', {},
    target ? targetView(target, base, onOpen) : null,
    table('what-if-table', `Serving knobs, each alone, from ${ratio(sequencesThatFit(base))} sequences of ${commas(base.max_model_len)} tokens`, ranked, base),
    model.length ? table('what-if-model', 'A different model (the articles\' levers: not knobs of this deployment)', model, base) : null);
}

function targetView(target, base, onOpen) {
  const n = base.target.sequences;
  const wanted = `${commas(n)} sequence${n === 1 ? '' : 's'} of ${commas(base.target.context_tokens)} tokens`;
  if (target.error) return h('p', { class: 'error-text' }, target.error);
  if (target.loading) return h('p', { id: 'what-if-target', class: 'loading', role: 'status' }, 'Loading the solver…');
  const o = target.option;
  if (!o || !target.met) {
    return h('p', { id: 'what-if-target', class: 'warn' },
      `No layout of ${base.gpu.name} within the solver's limits holds ${wanted}${o ? `: ${o.binding_constraint} — ${o.reason}` : ''}.`);
  }
  return h('p', { id: 'what-if-target' },
    `To hold ${wanted} on ${o.gpu_name}: `,
    h('strong', {}, `${commas(o.gpus)} GPU${o.gpus === 1 ? '' : 's'} (TP ${o.tp} × PP ${o.pp} × ${o.dp} replica${o.dp === 1 ? '' : 's'}), KV ${o.kv_dtype}, weights ${o.weight_dtype}`),
    ' ', h('button', { type: 'button', id: 'what-if-open', onclick: () => onOpen(o) }, 'Open it'));
}

function table(id, caption, rows, base) {
  return h('table', { class: 'what-if', id },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ['lever', 'sequences that fit', 'change', 'longest sequence', 'starts'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows.map((x) => h('tr', {},
      h('th', { scope: 'row' }, x.label, h('span', { class: 'exact' }, ` ${x.detail}`)),
      x.report ? [
        h('td', {}, ratio(sequencesThatFit(x.report))),
        h('td', {}, change(sequencesThatFit(x.report), sequencesThatFit(base))),
        h('td', {}, x.report.max_context === null ? 'unbounded' : `${commas(x.report.max_context)} tokens`),
        h('td', {}, x.report.starts ? 'yes' : 'no')]
        : h('td', { colspan: 4, class: 'muted' }, x.error)))));
}

function gain(x, base) {
  return x.report ? sequencesThatFit(x.report) - sequencesThatFit(base) : -Infinity;
}

function change(value, base) {
  if (base === 0) return value > 0 ? `+${ratio(value)}` : '0';
  const pct = (value / base - 1) * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(0)}%`;
}
