// What every chart adds to its picture: a keyboard stop whose arrow keys step from point to point,
// a polite live line that says the point's values, and its data as a CSV file.
import { downloadText, h } from './dom.js';
import { csvCell } from './format.js';

/**
 * One column of a chart's data: exact values, what the CSV header calls them, and how to say one.
 * @typedef {{name: string, unit?: string, values: Array<number|string|null>, text: (v: any) => string}} Column
 */

/** The index that an arrow, Home or End key moves to from `i` among `n` points; else undefined. */
export function stepTo(key, i, n) {
  const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: n - 1 }[key];
  return to === undefined ? undefined : Math.min(n - 1, Math.max(0, to));
}

/** "context 65,536 tokens: 7 sequences": the first column, then the others' values (named when several). */
export function readout(columns, i) {
  const [x, ...ys] = columns;
  const named = ys.length > 1;
  return `${x.name} ${x.text(x.values[i])}: ${ys.map((c) => `${named ? `${c.name} ` : ''}${c.text(c.values[i])}`).join(', ')}`;
}

/** RFC 4180 text of the columns, a header row with each column's unit first. */
export function csvText(columns) {
  const header = columns.map((c) => (c.unit ? `${c.name} (${c.unit})` : c.name));
  const rows = columns[0].values.map((_, i) => columns.map((c) => c.values[i]));
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\n') + '\n';
}

const wired = new WeakMap();  // container -> its live line, once it has its keys and button

/**
 * Makes a chart's container a keyboard stop and puts its live line and "Download CSV" button
 * after it, once (the chart inside may be rebuilt). `.chart[hidden] + .chart-tools` hides them too.
 * @param {HTMLElement} box
 * @param {{name: string, columns: () => Column[] | undefined, onKey: (key: string) => string | undefined,
 *   onBlur: () => void, visible?: boolean}} chart name: in the button's label; onKey moves the
 *   cursor and returns what to say; visible: the live line shows (where no legend shows values)
 * @returns {HTMLElement} the live line
 */
export function makeReadable(box, { name, columns, onKey, onBlur, visible = false }) {
  if (wired.has(box)) return wired.get(box);
  const live = h('p', { id: `${box.id}-readout`, class: visible ? 'chart-readout' : 'visually-hidden', 'aria-live': 'polite' });
  const save = () => {
    const data = columns();
    if (data) downloadText(`kvscope-${box.id.replace(/^chart-/, '')}.csv`, csvText(data), 'text/csv');
  };
  box.after(h('div', { class: 'chart-tools' }, live,
    h('button', { type: 'button', class: 'chart-csv', 'aria-label': `Download the ${name} chart's data as CSV`, onclick: save }, 'Download CSV')));
  box.tabIndex = 0;
  box.setAttribute('role', 'application');  // screen readers pass the arrow keys through
  box.setAttribute('aria-roledescription', 'chart');
  box.setAttribute('aria-describedby', live.id);
  box.addEventListener('keydown', (e) => {
    const said = onKey(e.key);
    if (said === undefined) return;
    e.preventDefault();
    live.textContent = said;
  });
  // Tabbing in shows the last point (max_model_len, the largest batch); a click leaves it to the mouse.
  box.addEventListener('focus', () => { if (box.matches(':focus-visible')) live.textContent = onKey('End') ?? ''; });
  box.addEventListener('blur', onBlur);
  wired.set(box, live);
  return live;
}
