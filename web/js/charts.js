// The page's interface to its charts: their code (chart-plots.js, its own bundle in the staged
// site, 4 kB gzipped) is fetched with the first chart asked for, as uPlot is, not with the page's
// first answer, which draws none (the charts wait until they are near the viewport). A chart asked
// for meanwhile is drawn once it has loaded, with the latest data asked for.

/** @typedef {{loaded: () => void, failed: (e: Error) => void}} ChartHooks */

// From the js/ folder's parent, as kvscope-client.js's module URLs: the same from a bundle anywhere.
const plotsUrl = new URL('../js/chart-plots.js', import.meta.url);

/** @type {typeof import('./chart-plots.js') | null} */
let plots = null;
/** @type {Promise<void> | null} */
let loading = null;
/** @type {Map<string, unknown[]>} the latest arguments of each drawing asked for while loading */
const asked = new Map();
/** @type {ChartHooks} */
let hooks = { loaded: () => {}, failed: (e) => { throw e; } };

/**
 * Runs `name` of chart-plots.js now, or once it has loaded.
 * @param {'drawSweeps'|'drawWhatIf'|'drawMeasured'} name
 * @param {unknown[]} args
 */
function draw(name, args) {
  if (plots) {
    /** @type {Function} */ (plots[name])(...args);
    return;
  }
  asked.set(name, args);
  loading ??= import(plotsUrl.href).then((m) => {
    plots = m;
    m.setChartLibraryHooks(hooks);
    const calls = [...asked];
    asked.clear();
    for (const [n, a] of calls) m[n](...a);
  }, () => {
    loading = null;  // the next chart asked for tries again
    asked.clear();
    hooks.failed(new Error(`the charts' code (${plotsUrl.href}) did not load`));
  });
}

/**
 * What the page does when the chart library has loaded (every chart asked for is drawn) or has
 * failed to, or the charts' own code has (the next chart asked for tries again).
 * @param {ChartHooks} h
 */
export function setChartLibraryHooks(h) {
  hooks = h;
  plots?.setChartLibraryHooks(h);
}

/** Forgets every chart (after a theme change their colours are rebuilt). */
export function resetCharts() { plots?.resetCharts(); }

/** The card's memory bar and the sweep charts. @param {unknown[]} args chart-plots.js drawSweeps's */
export function drawSweeps(...args) { draw('drawSweeps', args); }

/** The what-if chart. @param {unknown[]} args chart-plots.js drawWhatIf's */
export function drawWhatIf(...args) { draw('drawWhatIf', args); }

/** The measured records' chart. @param {unknown[]} args chart-plots.js drawMeasured's */
export function drawMeasured(...args) { draw('drawMeasured', args); }
