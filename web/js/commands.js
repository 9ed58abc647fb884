// The same scenario as text: the kvscope command that reproduces the page's numbers and the
// exports (JSON, CSV, Markdown). The engine's launch command comes with the plan from the core.
import { DEFAULTS, attributeOf, planRequest, shellWord } from './state.js';
import { csvCell } from './format.js';

/**
 * `kvscope plan ...` for the state, as the core writes the request's flags; a pasted config is
 * read from a file of its name.
 * @param {import('./kvscope-client.js').Kvscope} kv
 */
export function cliCommand(kv, state) {
  return ['kvscope', ...kv.commandLine('plan', planRequest(state))].map(shellWord).join(' ');
}

/** The headline figures of a plan as [label, value, unit] rows (CSV and Markdown share them). */
export function summaryRows(r) {
  return [
    ['model', r.model.name, ''],
    ['engine', r.input.engine, ''],
    ['card', r.gpu.name, ''],
    ['gpus', r.parallelism.gpus, ''],
    ['kv_dtype', r.kv_dtype.name, ''],
    ['weight_dtype', r.weight_dtype.name, ''],
    ['max_model_len', r.max_model_len, 'tokens'],
    ['kv_bytes_per_token', r.kv_bytes_per_token, 'bytes'],
    ['kv_bytes_per_sequence', r.kv_bytes_per_sequence, 'bytes'],
    ['weights_bytes', r.weights_bytes, 'bytes per GPU'],
    ['kv_pool_bytes', r.kv_pool_bytes, 'bytes per GPU'],
    ['kv_pool_tokens', r.kv_pool_tokens, 'tokens'],
    ['sequences_that_fit', r.sequences_that_fit ?? '', `sequences of ${r.target?.context_tokens ?? r.max_model_len} tokens per replica (the capacity)`],
    ['max_concurrency', r.max_concurrency, 'requests of max_model_len, as the engine counts them'],
    ['max_context', r.max_context ?? 'unbounded', 'tokens'],
    ['starts', r.starts, ''],
    ['max_model_len_that_fits', r.max_model_len_that_fits, 'tokens'],
  ];
}

/** RFC 4180 CSV of the summary rows. */
export function toCsv(r) {
  return ['field,value,unit', ...summaryRows(r).map((row) => row.map(csvCell).join(','))].join('\n') + '\n';
}

/** A Markdown table of the summary rows, pipes in values escaped. */
export function toMarkdown(r) {
  const cell = (v) => String(v).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return ['| field | value | unit |', '|---|---|---|',
    ...summaryRows(r).map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n') + '\n';
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
