// The page's charts, drawn by uPlot (bundled from npm into vendor/, loaded as a classic script when
// the first chart is drawn, near the viewport: it redraws a chart in about a millisecond, but it is
// 22 kB gzipped and evaluating it took 80 ms of a 2-core machine's start-up), and the card's memory
// bar. Loaded itself with the first chart asked for (charts.js, the page's interface to it). Each chart is made once in its container and given new data on every change; its legend
// shows the values under the cursor, and chart-access.js adds the keyboard, the spoken values and
// the CSV.
import { commas, rate, ratio, seconds, sequencesThatFit, tokens } from './format.js';
import { makeReadable, readout, stepTo } from './chart-access.js';
import { drawMemory } from './chart-memory.js';

const charts = new Map();  // container id -> {plot, key, spec, shown, observer}

let library = null;
/**
 * Loads uPlot and its stylesheet once (upsert asks for them; the charts it was given meanwhile
 * are drawn on load): neither is on the first answer's path.
 * @returns {Promise<void>} rejects with a message naming the file when one does not load
 */
function loadChartLibrary() {
  if (globalThis.uPlot) return Promise.resolve();
  const file = (name) => new URL(`../vendor/uplot/${name}`, import.meta.url).href;
  const load = (tag, props) => new Promise((resolve, reject) => {
    const element = Object.assign(document.createElement(tag), props);
    element.addEventListener('load', () => resolve());
    element.addEventListener('error', () => reject(new Error(`the chart library (${props.src ?? props.href}) did not load`)));
    document.head.append(element);
  });
  library ??= Promise.all([
    load('script', { src: file('uPlot.iife.min.js') }),
    load('link', { rel: 'stylesheet', href: file('uPlot.min.css') }),
  ]).then(() => {}, (e) => { library = null; throw e; });
  return library;
}

// The axes' text and grid and the series' colours come from the stylesheet (light or dark theme).
function theme() {
  const style = getComputedStyle(document.documentElement);
  const v = (name) => style.getPropertyValue(name).trim();
  return { text: v('--fg'), grid: v('--grid'), series: [1, 2, 3, 4, 5, 6].map((i) => v(`--series-${i}`)) };
}

function axis(t, label, extra = {}) {
  return { label, stroke: t.text, grid: { stroke: t.grid, width: 1 }, ticks: { stroke: t.grid, width: 1 }, ...extra };
}

const compact = (v) => (v == null ? '' : Math.abs(v) >= 1e6 ? `${+(v / 1e6).toPrecision(3)}M`
  : Math.abs(v) >= 1e3 ? `${+(v / 1e3).toPrecision(3)}k` : `${+v.toPrecision(3)}`);
const axisValues = (u, splits) => splits.map(compact);

// Log-2 axes: a grid line at every power of two inside the scale; uPlot leaves out the labels that
// would come closer than the axis' `space` (px), counting from the largest.
function powersOfTwo(u, axisIdx, min, max) {
  const splits = [];
  for (let p = 2 ** Math.ceil(Math.log2(min) - 1e-9); p <= max * (1 + 1e-9); p *= 2) splits.push(p);
  return splits;
}
const tickLabels = (show) => (u, splits) => splits.map((v) => (v == null ? '' : show(v)));
// The data's own ends (a log scale otherwise widens to whole powers).
const exact = (u, lo, hi) => (lo === hi ? [lo / 2, hi * 2] : [lo, hi]);
const tokenScale = { time: false, distr: 3, log: 2, range: exact };
const tokenAxis = (t, label) => axis(t, label, { splits: powersOfTwo, values: tickLabels(tokens), space: 40 });
const tokenColumn = (values) => ({ name: 'context', unit: 'tokens', values, text: (v) => `${commas(v)} tokens` });

/** A legend value: column `c` of the chart's latest data at the cursor, else at the last point. */
const shows = (current, c) => (u, v, si, i) => {
  const column = current().columns[c];
  return column.text(column.values[i ?? column.values.length - 1]);
};
const line = (label, color, value, extra = {}) => ({ label, stroke: color, width: 2, value, points: { show: false }, ...extra });
const dot = (label, color, value) => ({ label, stroke: color, width: 0, value, points: { show: true, size: 9, fill: color } });
const xs = (series) => series.points.map((p) => p[0]);
const ys = (series) => series.points.map((p) => p[1]);

function forget(entry) {
  entry.observer.disconnect();
  entry.plot.destroy();
}

// The charts asked for before the library has loaded: the latest spec of each, drawn once it has.
const waiting = new Map();
let libraryHooks = { loaded: () => {}, failed: (/** @type {Error} */ e) => { throw e; } };
/**
 * What the page does when the chart library has loaded (every chart asked for is drawn) or has
 * failed to (the next chart asked for tries again).
 * @param {{loaded: () => void, failed: (e: Error) => void}} hooks
 */
export function setChartLibraryHooks(hooks) { libraryHooks = hooks; }
function drawOnLoad(id, spec) {
  const loadUnderWay = waiting.size > 0;
  waiting.set(id, spec);
  if (loadUnderWay) return;  // that load draws it too
  loadChartLibrary().then(() => {
    const specs = [...waiting];
    waiting.clear();
    for (const [i, s] of specs) upsert(i, s);
    libraryHooks.loaded();
  }, (e) => {
    waiting.clear();
    libraryHooks.failed(e);
  });
}

/** Forgets every chart (after a theme change their colours are rebuilt). */
export function resetCharts() {
  for (const entry of charts.values()) forget(entry);
  charts.clear();
}

// The arrow keys move the cursor from point to point; the legend shows the values there.
function stepCursor(entry, key) {
  if (!entry) return undefined;
  const { plot } = entry;
  const n = plot.data[0].length;
  const i = stepTo(key, plot.cursor.idx ?? n - 1, n);
  if (i === undefined) return undefined;
  const s = plot.series.findIndex((_, k) => k > 0 && plot.data[k][i] != null);  // the first series with a point there
  const top = s > 0 ? plot.valToPos(plot.data[s][i], plot.series[s].scale) : plot.over.clientHeight / 2;
  plot.setCursor({ left: plot.valToPos(plot.data[0][i], 'x'), top }, true, true);
  return readout(entry.spec.columns, i);
}

/**
 * Makes the chart in container `id` (again when its shape `key` changed) and gives it the data.
 * @param {string} id
 * @param {{key: string, name: string, data: Array, columns: import('./chart-access.js').Column[], marks?: any,
 *   options: (current: () => any) => object}} spec name: in the CSV button's label; columns: the
 *   exact data (legend, spoken values, CSV); marks: what hooks draw; options: uPlot's options
 *   without the size, `current()` giving the latest spec
 */
function upsert(id, spec) {
  const uPlot = globalThis.uPlot;
  const box = document.getElementById(id);
  if (!box) return;
  if (!uPlot) {
    drawOnLoad(id, spec);
    return;
  }
  let entry = charts.get(id);
  if (entry && entry.key !== spec.key) {
    forget(entry);
    entry = undefined;
  }
  const shown = JSON.stringify([spec.data, spec.marks]);
  if (!entry) {
    const made = { key: spec.key, spec, shown };
    const width = () => Math.max(200, box.clientWidth);
    const options = spec.options(() => made.spec);
    made.plot = new uPlot({ width: width(), height: Number(box.dataset.height) || 240, ...options,
      cursor: { drag: { x: false, y: false }, ...options.cursor } }, spec.data, box);
    made.observer = new ResizeObserver(() => made.plot.setSize({ width: width(), height: made.plot.height }));
    made.observer.observe(box);
    charts.set(id, made);
    makeReadable(box, { name: spec.name, columns: () => charts.get(id)?.spec.columns,
      onKey: (key) => stepCursor(charts.get(id), key), onBlur: () => charts.get(id)?.plot.setCursor({ left: -10, top: -10 }) });
    return;
  }
  entry.spec = spec;
  if (entry.shown !== shown) {
    entry.shown = shown;
    entry.plot.setData(spec.data);
  }
}

/**
 * Draws the sweep charts and the memory bar.
 * @param {any} s kvscope.sweeps/1 @param {any} r kvscope.report/1 @param {any} fmt
 */
export function drawSweeps(s, r, fmt) {
  drawMemory(document.getElementById('chart-memory'), s.memory_breakdown_per_gpu, r.gpu.memory_bytes, fmt);
  drawConcurrency(s.concurrency_vs_context);
  drawKvContext(s.kv_bytes_vs_context, r.kv_pool_bytes, fmt);
  const hasBatch = s.tokens_per_s_vs_batch.points.length > 0;
  document.getElementById('chart-batch-empty').hidden = hasBatch;
  for (const id of ['chart-throughput', 'chart-step']) document.getElementById(id).hidden = !hasBatch;
  if (!hasBatch) return;
  const batch = { name: 'batch', unit: 'sequences', values: xs(s.tokens_per_s_vs_batch), text: (b) => `${commas(b)} sequences` };
  drawDecode('chart-throughput', 'decode throughput', s.kv_capped_batch, 'decode tokens/s', 2,
    [batch, { name: 'decode', unit: 'tokens/s', values: ys(s.tokens_per_s_vs_batch), text: (v) => `${rate(v)} tokens/s` }], (v) => v);
  drawDecode('chart-step', 'step time', s.kv_capped_batch, 'step time (ms)', 3,
    [batch, { name: 'step time', unit: 's', values: ys(s.step_time_s_vs_batch), text: seconds }], (t) => t * 1e3);
}

// Sequences on a log axis: 7 at 64K stays as readable as 800 at 1K. Zero has no place on it, so
// the contexts where not one sequence fits are shaded instead.
function drawConcurrency(series) {
  const contexts = xs(series);
  const fits = ys(series);
  const last = fits.length - 1;
  const columns = [tokenColumn(contexts),
    { name: 'sequences that fit', unit: 'sequences', values: fits, text: (v) => `${commas(v)} sequence${v === 1 ? '' : 's'}` }];
  const noneFrom = fits.indexOf(0);
  upsert('chart-concurrency', {
    key: 'concurrency', name: 'concurrency', columns, marks: noneFrom < 0 ? null : contexts[noneFrom],
    data: [contexts, fits.map((y) => (y > 0 ? y : null)), fits.map((y, i) => (i === last && y > 0 ? y : null))],
    options: (current) => {
      const t = theme();
      return {
        scales: { x: tokenScale, y: { distr: 3, log: 2, range: octavesAround } },
        axes: [tokenAxis(t, 'context (tokens)'),
          axis(t, 'sequences that fit', { splits: powersOfTwo, values: tickLabels((v) => (v >= 1 ? commas(v) : '')), space: 22, size: 56 })],
        series: [{ label: 'context', value: shows(current, 0) },
          line('in the KV pool', t.series[0], shows(current, 1), { paths: globalThis.uPlot.paths.stepped({ align: 1 }) }),
          dot('at max_model_len', t.series[1], (u, v, si, i) => (i == null || i === current().columns[1].values.length - 1
            ? shows(current, 1)(u, v, si, i) : ''))],
        hooks: { draw: [(u) => shadeNoneFits(u, current().marks, t.series[1])] },
      };
    },
  });
}

// Room of one octave or more below the fewest and above the most.
function octavesAround(u, lo, hi) {
  if (!(lo > 0 && hi > 0)) return [0.5, 2];
  return [2 ** (Math.floor(Math.log2(lo)) - 1), 2 ** (Math.floor(Math.log2(hi)) + 1)];
}

function shadeNoneFits(u, from, color) {
  if (from == null) return;
  const { left, top, width, height } = u.bbox;
  const x = Math.max(left, Math.round(u.valToPos(from, 'x', true)));
  const ctx = u.ctx;
  ctx.save();
  ctx.fillStyle = color;
  ctx.globalAlpha = 0.12;
  ctx.fillRect(x, top, left + width - x, height);
  ctx.globalAlpha = 1;
  drawLabel(ctx, x, top + 14 * devicePixelRatio, ['no sequence fits', 'none fits'], left, left + width, ['right']);
  ctx.restore();
}

// The first of `texts` that fits beside x between left and right, on the first of `sides` with room.
function drawLabel(ctx, x, y, texts, left, right, sides) {
  ctx.font = `${12 * devicePixelRatio}px system-ui, sans-serif`;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'alphabetic';
  const pad = 4 * devicePixelRatio;
  const room = { right: right - x - 2 * pad, left: x - left - 2 * pad };
  for (const text of texts) {
    const w = ctx.measureText(text).width;
    const where = sides.find((s) => w <= room[s]);
    if (where) {
      ctx.fillText(text, where === 'right' ? x + pad : x - pad - w, y);
      return;
    }
  }
}

function drawKvContext(series, pool, fmt) {
  const contexts = xs(series[0]);
  const bytes = (b) => fmt.size(b);
  const columns = [tokenColumn(contexts), ...series.map((x) => ({ name: x.name, unit: 'bytes', values: ys(x), text: bytes })),
    { name: 'KV pool', unit: 'bytes', values: contexts.map(() => pool), text: bytes }];
  upsert('chart-kv-context', {
    key: `kv ${fmt.units} ${series.map((x) => x.name).join()}`, name: 'KV per sequence', columns,
    data: [contexts, ...series.map((x) => ys(x).map(fmt.scale)), contexts.map(() => (pool > 0 ? fmt.scale(pool) : null))],
    options: (current) => {
      const t = theme();
      return {
        scales: { x: tokenScale, y: { distr: 3, log: 10 } },
        axes: [tokenAxis(t, 'context (tokens)'), axis(t, `KV per sequence (${fmt.units})`, { values: axisValues, size: 60 })],
        series: [{ label: 'context', value: shows(current, 0) },
          ...series.map((x, i) => line(x.name, t.series[i], shows(current, i + 1))),
          line('KV pool', t.series[5], shows(current, series.length + 1), { dash: [6, 4] })],
      };
    },
  });
}

// Throughput and step time on charts of their own: on two axes of one their lines coincide.
function drawDecode(id, name, cap, label, color, columns, toAxis) {
  upsert(id, {
    key: id, name, columns, marks: cap, data: [columns[0].values, columns[1].values.map(toAxis)],
    options: (current) => {
      const t = theme();
      return {
        cursor: { sync: { key: 'decode' } },
        scales: { x: { time: false, distr: 3, log: 2, range: exact }, y: { range: (u, lo, hi) => [0, hi * 1.05] } },
        axes: [axis(t, 'batch (sequences)', { splits: powersOfTwo, values: tickLabels(commas), space: 36 }),
          axis(t, label, { values: axisValues, size: 60 })],
        series: [{ label: 'batch', value: shows(current, 0) }, line(columns[1].name, t.series[color], shows(current, 1))],
        hooks: { draw: [(u) => drawCap(u, current().marks, t.series[1])] },
      };
    },
  });
}

// A dashed vertical line where the KV pool caps the batch, labelled.
function drawCap(u, cap, color) {
  if (!cap) return;
  const x = Math.round(u.valToPos(cap, 'x', true));
  if (!(x >= u.bbox.left && x <= u.bbox.left + u.bbox.width)) return;
  const ctx = u.ctx;
  ctx.save();
  ctx.strokeStyle = color;
  ctx.setLineDash([5, 4]);
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(x, u.bbox.top);
  ctx.lineTo(x, u.bbox.top + u.bbox.height);
  ctx.stroke();
  ctx.fillStyle = color;
  drawLabel(ctx, x, u.bbox.top + u.bbox.height - 8 * devicePixelRatio, [`KV pool caps the batch at ${cap}`, `KV pool's cap: ${cap}`, `cap ${cap}`],
    u.bbox.left, u.bbox.left + u.bbox.width, ['right', 'left']);
  ctx.restore();
}

/** The what-if chart: change in sequences that fit, one bar per lever, largest first. */
export function drawWhatIf(results, base) {
  const rows = results.filter((x) => x.report).sort((a, b) => sequencesThatFit(b.report) - sequencesThatFit(a.report));
  const names = rows.map((x) => x.short ?? x.label);
  const columns = [{ name: 'lever', values: names, text: String },
    { name: 'sequences gained', unit: 'sequences', values: rows.map((x) => sequencesThatFit(x.report) - sequencesThatFit(base)),
      text: (v) => `${v > 0 ? '+' : ''}${ratio(v)} sequences` }];
  upsert('chart-what-if', {
    key: `what-if ${names.join()}`, name: 'what-if', columns, data: [rows.map((_, i) => i), columns[1].values],
    options: (current) => {
      const t = theme();
      return {
        scales: { x: { time: false, range: [-0.5, rows.length - 0.5] }, y: { range: (u, lo, hi) => [Math.min(0, lo), Math.max(0, hi)] } },
        axes: [axis(t, '', { values: (u, splits) => splits.map((i) => names[i] ?? ''), splits: () => rows.map((_, i) => i), grid: { show: false }, size: 40 }),
          axis(t, 'sequences gained', { size: 60 })],
        series: [{ label: 'lever', value: shows(current, 0) },
          { label: 'change', fill: `${t.series[2]}cc`, stroke: t.series[2], value: shows(current, 1),
            paths: globalThis.uPlot.paths.bars({ size: [0.6, 60] }), points: { show: false } }],
      };
    },
  });
}

/** Measured decode attention beside the estimate line (bytes / measured read bandwidth). */
export function drawMeasured(records) {
  if (!records.length) return;
  const sorted = [...records].sort((a, b) => a.bytes_moved - b.bytes_moved);
  const columns = [
    { name: 'bytes read per step', unit: 'bytes', values: sorted.map((r) => r.bytes_moved), text: (b) => `${+(b / 1e9).toPrecision(3)} GB` },
    { name: 'estimate', unit: 's', values: sorted.map((r) => r.bytes_moved / r.measured_bandwidth_bytes_per_s), text: seconds },
    { name: 'measured', unit: 's', values: sorted.map((r) => r.timing.median_s), text: seconds }];
  upsert('chart-measured', {
    key: `measured ${sorted.length}`, name: 'measured', columns,
    data: [columns[0].values.map((b) => b / 1e9), ...columns.slice(1).map((c) => c.values.map((s) => s * 1e3))],
    options: (current) => {
      const t = theme();
      return {
        scales: { x: { time: false, distr: 3, log: 10 }, y: { distr: 3, log: 10 } },
        axes: [axis(t, 'bytes read per step (GB)', { values: axisValues }), axis(t, 'time per step (ms)', { values: axisValues, size: 60 })],
        series: [{ label: 'read', value: shows(current, 0) },
          line('estimate: bytes / measured read bandwidth', t.series[0], shows(current, 1), { dash: [6, 4] }),
          dot('measured (median)', t.series[1], shows(current, 2))],
      };
    },
  });
}
