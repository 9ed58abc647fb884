// Share and export: the permalink, the equivalent commands, and downloads of the report.
import { h } from '../dom.js';

/**
 * @param {{permalink: string, cli: string, engine: string|null}} texts
 * @param {{onCopy: (text: string, button: HTMLButtonElement) => void, onExport: (kind: string) => void}} handlers
 */
export function shareView(texts, handlers) {
  const copyRow = (id, label, value) => h('div', { class: 'copy-row' },
    h('label', { for: id }, label),
    h('div', { class: 'copy-field' },
      h('input', { id, readOnly: true, value, spellcheck: false }),
      h('button', { type: 'button', onclick: (e) => handlers.onCopy(value, e.currentTarget) }, 'Copy')));
  return h('div', {},
    copyRow('permalink', 'Permalink (restores every input)', texts.permalink),
    copyRow('cli-command', 'The same numbers from the command line', texts.cli),
    texts.engine ? copyRow('engine-command', 'Engine launch command', texts.engine) : null,
    h('div', { class: 'buttons' },
      ['json', 'csv', 'markdown'].map((kind) => h('button', { type: 'button', id: `export-${kind}`, onclick: () => handlers.onExport(kind) },
        `Export ${kind === 'json' ? 'JSON' : kind === 'csv' ? 'CSV' : 'Markdown'}`))));
}
