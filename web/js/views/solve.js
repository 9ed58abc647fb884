// "Which GPUs": the solver's ranked layouts for the target, each a click from its scenario and its
// launch command; the GPU types that cannot meet it and why; why fewer GPUs fall short.
import { h } from '../dom.js';
import { commas, rate, ratio, seconds } from '../format.js';

const usd = (x) => (x === null || x === undefined ? null : `$${x < 10 ? x.toFixed(2) : commas(x)}`);
const layout = (o) => `${o.tp}×${o.pp}×${o.dp}`;

/** "tie" or "+8%" against the best option's $/hour; empty when either is unpriced. */
function versusBest(o) {
  if (o.cost_vs_best === null) return '';
  if (Math.abs(o.cost_vs_best - 1) < 1e-9) return 'tie';
  return `+${((o.cost_vs_best - 1) * 100).toFixed(0)}%`;
}

/**
 * @param {import('../kvscope').SolveReport} r
 * @param {{bytes: (n: number) => string}} fmt
 * @param {{onOpen?: (o: import('../kvscope').SolveOption) => void,
 *   onCopy?: (text: string, button: HTMLButtonElement) => void, rows?: number}} options
 *   rows: how many options to list (the rest behind "Show all"); no handlers: a static table
 */
export function solveView(r, fmt, { onOpen, onCopy, rows = 10 } = {}) {
  const target = `${commas(r.target.concurrency)} sequence${r.target.concurrency === 1 ? '' : 's'} of ${commas(r.target.context_tokens)} tokens at once`;
  const met = r.options.filter((o) => o.meets_target);
  const missed = r.options.filter((o) => !o.meets_target);
  const row = (o, i) => h('tr', { 'data-gpu': o.gpu, 'data-gpus': o.gpus, class: o.cost_vs_best !== null && versusBest(o) === 'tie' ? 'tie' : null },
    h('th', { scope: 'row' }, `${i + 1}`),
    h('td', {}, o.gpu_name),
    h('td', { 'data-value': o.gpus }, commas(o.gpus)),
    h('td', { 'data-value': o.usd_per_hour ?? '' }, usd(o.usd_per_hour) ?? 'no price', o.usd_per_hour !== null ? h('span', { class: 'muted' }, ` ${versusBest(o)}`) : null),
    h('td', { title: 'tensor × pipeline × data-parallel replicas' }, layout(o)),
    h('td', {}, o.kv_dtype),
    h('td', {}, o.weight_dtype),
    h('td', { 'data-value': o.sequences_that_fit }, `${ratio(o.sequences_that_fit)} (+${(o.margin * 100).toFixed(0)}%)`),
    h('td', { 'data-value': o.decode_tokens_per_s_per_user ?? '' }, o.decode_tokens_per_s_per_user !== null ? rate(o.decode_tokens_per_s_per_user) : '–'),
    h('td', {}, o.prefill_s !== null ? seconds(o.prefill_s) : '–'),
    h('td', {}, usd(o.usd_per_user_hour) ?? '–'),
    h('td', {}, o.usd_per_million_output_tokens !== null ? usd(o.usd_per_million_output_tokens) : '–'),
    onOpen || onCopy ? h('td', { class: 'actions' },
      onOpen ? h('button', { type: 'button', class: 'open', 'aria-label': `Open ${commas(o.gpus)} × ${o.gpu_name} (${layout(o)}, KV ${o.kv_dtype}, weights ${o.weight_dtype}) in the page`, onclick: () => onOpen(o) }, 'Open') : null,
      onCopy ? h('button', { type: 'button', class: 'copy-command', 'aria-label': `Copy the launch command for ${commas(o.gpus)} × ${o.gpu_name}`, onclick: (e) => onCopy(o.command, e.currentTarget) }, 'Copy command') : null) : null);
  const head = ['#', 'GPU', 'GPUs', '$/hour', 'TP×PP×DP', 'KV', 'weights', 'holds (margin)', 'tok/s per user', 'prefill', '$/user-hour', '$/1M output tokens', onOpen || onCopy ? '' : null];
  const table = (list, id, caption) => h('table', { class: 'solve', id },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, head.filter((c) => c !== null).map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, list.map(row)));
  const shown = met.slice(0, rows);
  const best = met[0];
  return h('div', { id: 'solve-result' },
    h('p', { class: best ? 'big' : 'big bad', id: 'solve-answer', 'aria-live': 'polite' },
      best ? `${commas(best.gpus)} × ${best.gpu_name}${best.usd_per_hour !== null ? ` at ${usd(best.usd_per_hour)}/hour` : ''} hold ${target}.`
        : `No layout of at most ${commas(r.search.max_gpus)} GPUs holds ${target}.`),
    best ? h('p', { class: 'muted' },
      `Ranked by $/hour where a price is known (the table's prices are list prices with their date, or yours), then by GPUs; at equal cost the checkpoint as stored first. `,
      `${r.model.name} under ${r.engine_label}; ${commas(r.search.plans_run)} layouts planned with ${r.engine_label}'s own arithmetic. Speeds are roofline estimates at the full context.`) : null,
    best ? h('div', { class: 'scroll' }, table(shown, 'solve-table', `The cheapest layouts for ${target}`)) : null,
    met.length > rows && onOpen ? h('details', { id: 'solve-more' }, h('summary', {}, `All ${met.length} layouts that meet it`),
      h('div', { class: 'scroll' }, table(met, 'solve-table-all', 'Every layout that meets the target, cheapest first'))) : null,
    best && best.unexpressed.length ? h('ul', { class: 'unexpressed' }, best.unexpressed.map((u) => h('li', {}, u))) : null,
    missed.length ? h('details', { id: 'solve-missed', open: !best },
      h('summary', {}, `${missed.length} GPU type${missed.length === 1 ? '' : 's'} that cannot`),
      h('ul', {}, missed.map((o) => h('li', {}, h('strong', {}, o.gpu_name), `: ${o.binding_constraint} — ${o.reason}`)))) : null,
    best ? cheaperView(r, best) : null,
    r.notes.length ? h('ul', { class: 'notes' }, r.notes.map((n) => h('li', {}, n))) : null);
}

/** Why fewer GPUs of the best option's type fall short. */
function cheaperView(r, best) {
  const gpu = r.gpus.find((g) => g.gpu === best.gpu);
  if (!gpu || !gpu.cheaper_failures.length) return null;
  return h('details', { id: 'solve-cheaper' },
    h('summary', {}, `Why fewer ${gpu.name} GPUs fall short`),
    h('ul', {}, gpu.cheaper_failures.map((f) => h('li', {},
      `${commas(f.gpus)} (${layout(f)}), KV ${f.kv_dtype}, ${f.weight_dtype}: `, h('strong', {}, f.binding_constraint), ` — ${f.reason}`))));
}

/**
 * $/GPU-hour per GPU type: the catalogue's cited list price (with its source and date) or the
 * user's, editable; empty where none is cited.
 * @param {import('../kvscope').GpuCatalogue['gpus']} gpus
 * @param {Record<string, number>} typed the user's prices
 * @param {(id: string, value: string) => void} onPrice
 */
export function pricesView(gpus, typed, onPrice) {
  return h('table', { class: 'prices', id: 'prices-table' },
    h('caption', {}, '$ per GPU-hour, on demand'),
    h('thead', {}, h('tr', {}, ['GPU', '$/hour', 'source'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, gpus.map((g) => h('tr', {},
      h('th', { scope: 'row' }, h('label', { for: `price-${g.id}` }, g.name)),
      h('td', {}, h('input', { id: `price-${g.id}`, type: 'number', min: 0, step: 0.01, inputMode: 'decimal',
        value: typed[g.id] ?? g.usd_per_gpu_hour ?? '', placeholder: 'type one',
        onchange: (e) => onPrice(g.id, e.target.value) })),
      h('td', { class: 'muted' }, typed[g.id] !== undefined ? 'yours' : g.price_source ?? 'no public list price cited: type yours')))));
}
