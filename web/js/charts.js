// The page's charts, drawn by uPlot (bundled from npm into vendor/, loaded as a classic script:
// it is small and redraws a chart in about a millisecond). Each chart is created once in its
// container and given new data on every change; only the KV-cap marker is drawn by a hook here.

const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2'];
const charts = new Map();  // id -> {plot, key}

function colors() {
  const style = getComputedStyle(document.documentElement);
  return { text: style.getPropertyValue('--fg').trim() || '#111', grid: style.getPropertyValue('--grid').trim() || '#ddd' };
}

function axis(label, extra = {}) {
  const c = colors();
  return { label, stroke: c.text, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid, width: 1 }, ...extra };
}

const compact = (v) => (v == null ? '' : Math.abs(v) >= 1e6 ? `${+(v / 1e6).toPrecision(3)}M`
  : Math.abs(v) >= 1e3 ? `${+(v / 1e3).toPrecision(3)}k` : `${+v.toPrecision(3)}`);
const axisValues = (u, splits) => splits.map(compact);

/**
 * Creates the chart in container `id` (or rebuilds it when its shape `key` changed) and sets data.
 * @param {string} id @param {string} key what makes the options differ (series names, units)
 * @param {() => object} options uPlot options without width/height @param {Array} data
 */
function upsert(id, key, options, data) {
  const uPlot = globalThis.uPlot;
  const box = document.getElementById(id);
  if (!uPlot || !box) return;
  let entry = charts.get(id);
  if (entry && entry.key !== key) {
    entry.plot.destroy();
    entry = null;
  }
  if (!entry) {
    const size = { width: Math.max(200, box.clientWidth), height: Number(box.dataset.height) || 240 };
    const opts = options();
    const plot = new uPlot({ ...size, ...opts, legend: { live: false, ...opts.legend } }, data, box);
    new ResizeObserver(() => plot.setSize({ width: Math.max(200, box.clientWidth), height: plot.height })).observe(box);
    charts.set(id, { plot, key });
  } else {
    const text = JSON.stringify(data);
    if (entry.data === text) return;  // unchanged: no redraw
    entry.data = text;
    entry.plot.setData(data);
  }
}

/** Forgets every chart (after a theme change their colours are rebuilt). */
export function resetCharts() {
  for (const { plot } of charts.values()) plot.destroy();
  charts.clear();
}

const line = (label, color, extra = {}) => ({ label, stroke: color, width: 2, points: { show: false }, ...extra });
const xs = (series) => series.points.map((p) => p[0]);
const ys = (series, scale = (y) => y) => series.points.map((p) => scale(p[1]));

/**
 * Draws the four sweep charts.
 * @param {any} s kvscope.sweeps/1 @param {any} r kvscope.report/1 @param {any} fmt
 */
export function drawSweeps(s, r, fmt) {
  const uPlot = globalThis.uPlot;
  if (!uPlot) return;
  const contexts = xs(s.concurrency_vs_context);
  const fits = ys(s.concurrency_vs_context);
  // The sweep ends at max_model_len: mark that point.
  const marker = fits.map((y, i) => (i === fits.length - 1 ? y : null));
  upsert('chart-concurrency', 'concurrency', () => ({
    scales: { x: { time: false, distr: 3, log: 2 }, y: { range: (u, lo, hi) => [0, Math.max(1, hi * 1.05)] } },
    axes: [axis('context (tokens)', { values: axisValues }), axis('sequences that fit', { values: axisValues, size: 60 })],
    series: [{ label: 'context' }, line('sequences in the KV pool', PALETTE[0], { paths: uPlot.paths.stepped({ align: 1 }) }),
      { label: 'at max_model_len', stroke: PALETTE[1], width: 0, points: { show: true, size: 9, fill: PALETTE[1] } }],
  }), [contexts, fits, marker]);

  const pool = fmt.scale(r.kv_pool_bytes);
  upsert('chart-kv-context', `kv ${fmt.units} ${s.kv_bytes_vs_context.map((x) => x.name).join()}`, () => ({
    scales: { x: { time: false, distr: 3, log: 2 }, y: { distr: 3, log: 10 } },
    axes: [axis('context (tokens)', { values: axisValues }), axis(`KV per sequence (${fmt.units})`, { values: axisValues, size: 60 })],
    series: [{ label: 'context' }, ...s.kv_bytes_vs_context.map((x, i) => line(x.name, PALETTE[i])),
      line(`KV pool (${fmt.units})`, PALETTE[5], { dash: [6, 4] })],
  }), [xs(s.kv_bytes_vs_context[0]), ...s.kv_bytes_vs_context.map((x) => ys(x, fmt.scale)), contexts.map(() => (pool > 0 ? pool : null))]);

  const hasBatch = s.tokens_per_s_vs_batch.points.length > 0;
  document.getElementById('chart-batch-empty').hidden = hasBatch;
  document.getElementById('chart-batch').hidden = !hasBatch;
  if (hasBatch) {
    const cap = s.kv_capped_batch;
    upsert('chart-batch', 'batch', () => ({
      scales: { x: { time: false, distr: 3, log: 2 }, y: { range: (u, lo, hi) => [0, hi * 1.05] }, ms: { range: (u, lo, hi) => [0, hi * 1.05] } },
      axes: [axis('batch (sequences)', { values: axisValues }), axis('decode tokens/s', { values: axisValues, size: 60 }),
        axis('step time (ms)', { scale: 'ms', side: 1, grid: { show: false }, values: axisValues, size: 60 })],
      series: [{ label: 'batch' }, line('tokens/s', PALETTE[2]), line('step time (ms)', PALETTE[3], { scale: 'ms' })],
      hooks: { draw: [(u) => drawCap(u, u.kvCap)] },
    }), [xs(s.tokens_per_s_vs_batch), ys(s.tokens_per_s_vs_batch), ys(s.step_time_s_vs_batch, (t) => t * 1e3)]);
    charts.get('chart-batch').plot.kvCap = cap;
    charts.get('chart-batch').plot.redraw(false, false);
  }

  const labels = { weights_bytes: 'weights', kv_pool_bytes: 'KV pool', state_pool_bytes: 'state pool', engine_reserve_bytes: 'reserve', not_given_to_the_engine_bytes: 'held back', free_bytes: 'free' };
  const parts = Object.entries(s.memory_breakdown_per_gpu);
  document.getElementById('chart-memory')?.setAttribute('aria-label',
    `Memory per GPU: ${parts.map(([key]) => labels[key] ?? key).join(', ')}`);
  // The axis labels are fixed when the chart is made: a different set of parts makes a new one.
  upsert('chart-memory', `memory ${fmt.units} ${parts.map(([key]) => key).join(',')}`, () => ({
    scales: { x: { time: false, range: [-0.5, parts.length - 0.5] }, y: { range: (u, lo, hi) => [0, hi] } },
    axes: [axis('', { values: (u, splits) => splits.map((i) => labels[parts[i]?.[0]] ?? ''), splits: () => parts.map((_, i) => i), grid: { show: false } }),
      axis(fmt.units, { size: 50 })],
    legend: { show: false },
    series: [{ label: 'part' }, { label: fmt.units, fill: PALETTE[0] + 'cc', stroke: PALETTE[0], paths: uPlot.paths.bars({ size: [0.6, 80] }), points: { show: false } }],
  }), [parts.map((_, i) => i), parts.map(([, v]) => fmt.scale(v))]);
}

// A dashed vertical line where the KV pool caps the batch, labelled.
function drawCap(u, cap) {
  if (!cap) return;
  const x = Math.round(u.valToPos(cap, 'x', true));
  if (!(x >= u.bbox.left && x <= u.bbox.left + u.bbox.width)) return;
  const ctx = u.ctx;
  ctx.save();
  ctx.strokeStyle = PALETTE[1];
  ctx.setLineDash([5, 4]);
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(x, u.bbox.top);
  ctx.lineTo(x, u.bbox.top + u.bbox.height);
  ctx.stroke();
  ctx.fillStyle = PALETTE[1];
  ctx.font = `${12 * devicePixelRatio}px sans-serif`;
  ctx.textAlign = x > u.bbox.left + u.bbox.width / 2 ? 'right' : 'left';
  ctx.fillText(` KV pool caps the batch at ${cap} `, x, u.bbox.top + u.bbox.height - 8 * devicePixelRatio);
  ctx.restore();
}

/** The what-if chart: change in sequences that fit, one bar per lever, largest first. */
export function drawWhatIf(results, base) {
  const uPlot = globalThis.uPlot;
  if (!uPlot) return;
  const rows = results.filter((x) => x.report).sort((a, b) => b.report.max_concurrency - a.report.max_concurrency);
  const names = rows.map((x) => x.short ?? x.label);
  upsert('chart-what-if', `what-if ${names.join()}`, () => ({
    scales: { x: { time: false, range: [-0.5, rows.length - 0.5] }, y: { range: (u, lo, hi) => [Math.min(0, lo), Math.max(0, hi)] } },
    axes: [axis('', { values: (u, splits) => splits.map((i) => names[i] ?? ''), splits: () => rows.map((_, i) => i), grid: { show: false }, size: 40 }),
      axis('sequences gained', { size: 60 })],
    legend: { show: false },
    series: [{ label: 'lever' }, { label: 'change', fill: PALETTE[2] + 'cc', stroke: PALETTE[2], paths: uPlot.paths.bars({ size: [0.6, 60] }), points: { show: false } }],
  }), [rows.map((_, i) => i), rows.map((x) => x.report.max_concurrency - base.max_concurrency)]);
}

/** Measured decode attention beside the estimate line (bytes / measured read bandwidth). */
export function drawMeasured(records) {
  const uPlot = globalThis.uPlot;
  if (!uPlot || !records.length) return;
  const sorted = [...records].sort((a, b) => a.bytes_moved - b.bytes_moved);
  const xs = sorted.map((r) => r.bytes_moved / 1e9);
  upsert('chart-measured', `measured ${sorted.length}`, () => ({
    scales: { x: { time: false, distr: 3, log: 10 }, y: { distr: 3, log: 10 } },
    axes: [axis('bytes read per step (GB)', { values: axisValues }), axis('time per step (ms)', { values: axisValues, size: 60 })],
    series: [{ label: 'GB' },
      line('estimate: bytes / measured read bandwidth', PALETTE[0], { dash: [6, 4] }),
      { label: 'measured (median)', stroke: PALETTE[1], width: 0, points: { show: true, size: 9, fill: PALETTE[1] } }],
  }), [xs, sorted.map((r) => (r.bytes_moved / r.measured_bandwidth_bytes_per_s) * 1e3), sorted.map((r) => r.timing.median_s * 1e3)]);
}
