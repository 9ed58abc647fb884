// The same scenario as text: the kvscope command that reproduces the page's numbers and the
// exports (JSON, CSV, Markdown). The engine's launch command comes with the plan from the core.
import { DEFAULTS, attributeOf, planRequest, shellWord } from './state.js';
import { csvCell } from './format.js';
import { markdownTable, summaryRows } from './report-text.js';

/**
 * `kvscope plan ...` for the state, as the core writes the request's flags; a pasted config is
 * read from a file of its name.
 * @param {import('./kvscope-client.js').Kvscope} kv
 */
export function cliCommand(kv, state) {
  return ['kvscope', ...kv.commandLine('plan', planRequest(state))].map(shellWord).join(' ');
}

/** RFC 4180 CSV of the summary rows. */
export function toCsv(r) {
  return ['field,value,unit', ...summaryRows(r).map((row) => row.map(csvCell).join(','))].join('\n') + '\n';
}

/** A Markdown table of the summary rows. */
export function toMarkdown(r) {
  return markdownTable(['field', 'value', 'unit'], summaryRows(r));
}

const escapeAttribute = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The two ways to embed the scenario in another page: the custom element (one module script)
 * and the iframe page for sites that cannot load scripts.
 * @param {any} state @param {string} view a widget view @param {string} base the site's URL (ends in /)
 */
export function embedSnippets(state, view, base) {
  const fields = Object.entries(state).filter(([k, v]) =>
    v !== DEFAULTS[k] && !['config', 'config_name', 'pins', 'theme'].includes(k));
  const attributes = fields.map(([k, v]) => ` ${attributeOf(k)}="${escapeAttribute(v)}"`).join('');
  const configNote = state.config ? `\n<!-- the page used a pasted config.json: publish it and add config-src="URL" -->` : '';
  const element = `<script type="module" src="${base}embed/define.js"></script>\n` +
    `<kv-cache-explorer view="${view}"${attributes} controls="context,kv-dtype"></kv-cache-explorer>${configNote}`;
  const hash = new URLSearchParams([...fields.map(([k, v]) => [k, String(v)]), ['view', view], ['frame', 'kvscope-1']]);
  const iframe = `<iframe src="${base}embed.html#${escapeAttribute(hash.toString())}" title="kvscope: KV cache" ` +
    `loading="lazy" width="100%" height="360" style="border:0"></iframe>\n` +
    `<!-- optional: let the frame set its own height -->\n` +
    `<script>addEventListener('message', (e) => { if (e.data && e.data.type === 'kvscope-embed-height') ` +
    `for (const f of document.querySelectorAll('iframe')) if (f.contentWindow === e.source) f.height = e.data.height; });</script>`;
  return { element, iframe };
}
