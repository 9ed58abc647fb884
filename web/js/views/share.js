// Share and export: the permalink, the equivalent commands, and downloads of the report.
import { h } from '../dom.js';

/**
 * @param {{permalink: string, cli: string, engine: string|null, unexpressed: string[]}} texts
 * @param {{onCopy: (text: string, button: HTMLButtonElement) => void, onExport: (kind: string) => void}} handlers
 */
export function shareView(texts, handlers) {
  // Each Copy button names what it copies (three buttons called "Copy" are one to a screen reader).
  const copyRow = (id, label, value, what) => h('div', { class: 'copy-row' },
    h('label', { for: id }, label),
    h('div', { class: 'copy-field' },
      h('input', { id, readOnly: true, value, spellcheck: false }),
      h('button', { type: 'button', 'aria-label': `Copy the ${what}`, onclick: (e) => handlers.onCopy(value, e.currentTarget) }, 'Copy')));
  return h('div', {},
    copyRow('permalink', 'Permalink (restores every input)', texts.permalink, 'permalink'),
    copyRow('cli-command', 'The same numbers from the command line', texts.cli, 'kvscope command'),
    texts.engine ? copyRow('engine-command', 'Engine launch command', texts.engine, 'engine launch command') : null,
    // What the command cannot set, right under it: a copied command would otherwise start another plan.
    texts.engine && texts.unexpressed.length
      ? h('ul', { id: 'engine-command-unexpressed', class: 'unexpressed' }, texts.unexpressed.map((line) => h('li', {}, line)))
      : null,
    h('div', { class: 'buttons' },
      ['json', 'csv', 'markdown'].map((kind) => h('button', { type: 'button', id: `export-${kind}`, onclick: () => handlers.onExport(kind) },
        `Export ${kind === 'json' ? 'JSON' : kind === 'csv' ? 'CSV' : 'Markdown'}`))));
}

/**
 * "Embed this": the custom-element and iframe snippets for the current scenario.
 * @param {{view: string, element: string, iframe: string}} snippets
 * @param {{onView: (view: string) => void, onCopy: (text: string, button: HTMLButtonElement) => void}} handlers
 * @param {string[]} views
 */
export function embedView(snippets, handlers, views) {
  const block = (id, label, text, what) => h('div', { class: 'copy-row' },
    h('label', { for: id }, label),
    h('textarea', { id, readOnly: true, rows: 4, value: text, spellcheck: false }),
    h('button', { type: 'button', 'aria-label': `Copy the ${what}`, onclick: (e) => handlers.onCopy(text, e.currentTarget) }, 'Copy'));
  return h('div', {},
    h('label', { for: 'embed-view' }, 'Which answer the widget shows'),
    h('select', { id: 'embed-view', onchange: (e) => handlers.onView(e.target.value) },
      views.map((v) => h('option', { value: v, selected: v === snippets.view }, v))),
    block('embed-element', 'Custom element (one module script)', snippets.element, 'custom-element snippet'),
    block('embed-iframe', 'iframe (for sites that cannot load scripts)', snippets.iframe, 'iframe snippet'));
}
