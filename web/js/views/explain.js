// "Explain my log": each figure a start-up log printed beside kvscope's, marked exact, within the
// printed rounding or different (with the reason); what was taken as measured; and the button
// that plans the page from the log's machine.
import { h } from '../dom.js';
import { commas } from '../format.js';

const MARK = { exact: '✓ exact', rounding: '≈ rounding', differs: '✗ differs' };

/**
 * @param {import('../kvscope').ExplainReport} r
 * @param {{modelFromPage?: string, dropped?: string[], onUse?: () => void}} options
 *   modelFromPage: the page's model, used because the log names none; dropped: plan keys the
 *   page cannot carry; onUse: plan the page from the log (absent: a static view)
 */
export function explainView(r, { modelFromPage = '', dropped = [], onUse } = {}) {
  const count = (m) => r.figures.filter((f) => f.match === m).length;
  const version = r.engine_version ? ` ${r.engine_version}` : '';
  const named = r.model.printed && r.model.printed !== r.model.id ? ` (the log says ${r.model.printed})` : '';
  return h('div', { id: 'explain-result' },
    h('p', { class: 'big', id: 'explain-answer', 'aria-live': 'polite' },
      `${r.engine_label}${version}, ${r.model.name}: ${count('exact')} exact, ${count('rounding')} within the printed rounding, ${count('differs')} different.`),
    h('p', { class: 'muted' },
      `${commas(r.lines)} lines read. Model ${r.model.name}${named}${modelFromPage ? ` — the log does not name it: the page's model (${modelFromPage}) was used; change it above if it is another` : ''}. `,
      'Read from the log: ', Object.entries(r.arguments).map(([k, v]) => `${k} ${v}`).join(', '), '.',
      r.modelled_version ? ` Modelled as ${r.engine_label} ${r.modelled_version.label}.` : ''),
    r.inputs.length ? h('ul', { id: 'explain-inputs' }, r.inputs.map((i) =>
      h('li', {}, `line ${i.line}: ${i.name} ${i.printed} ${i.unit}, taken as measured`))) : null,
    r.figures.length ? h('div', { class: 'scroll' }, h('table', { class: 'explain', id: 'explain-table' },
      h('caption', {}, 'Each figure the log printed, beside kvscope\'s at the same precision'),
      h('thead', {}, h('tr', {}, ['line', 'figure', 'engine printed', 'kvscope', 'match', 'how, or why not'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, r.figures.map((f) => h('tr', { 'data-match': f.match },
        h('td', {}, String(f.line)),
        h('th', { scope: 'row' }, f.name),
        h('td', {}, `${f.printed} ${f.unit}`),
        h('td', {}, f.kvscope === null ? '–' : `${f.kvscope} ${f.unit}`),
        h('td', { class: `match ${f.match}` }, MARK[f.match] ?? f.match),
        h('td', { class: 'muted' }, [f.derivation, f.reason].filter(Boolean).join('; '))))))) :
      h('p', { class: 'muted' }, 'The log prints no figure kvscope reproduces.'),
    r.notes.length ? h('ul', { class: 'notes' }, r.notes.map((n) => h('li', {}, n))) : null,
    r.calibrated ? h('div', { id: 'explain-calibration' },
      h('p', {}, 'Calibrated from your log: ', r.calibration.join('; '), '.'),
      onUse ? h('button', { type: 'button', id: 'explain-use', onclick: onUse }, 'Plan the page from this machine') : null,
      dropped.length ? h('p', { class: 'muted' }, `The page has no control for ${dropped.join(', ')}: the plan above uses them; the page keeps its own.`) : null) : null);
}
