// Share and export: copying a text, downloading the report as JSON, CSV or Markdown, the embed
// snippets, and the model's Hugging Face id for the engine command.
import { downloadText, showChanged } from './dom.js';
import { WIDGET_VIEWS } from './state.js';
import { embedSnippets, toCsv, toMarkdown } from './commands.js';
import { embedView } from './views/share.js';
import { $, page } from './page.js';

export async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Select and copy';
  }
  setTimeout(() => { button.textContent = 'Copy'; }, 1500);
}

export function exportReport(kind) {
  const r = page.last.plan;
  const [body, type, ext] = kind === 'json' ? [JSON.stringify(r, null, 2), 'application/json', 'json']
    : kind === 'csv' ? [toCsv(r), 'text/csv', 'csv'] : [toMarkdown(r), 'text/markdown', 'md'];
  downloadText(`kvscope-${(r.model.id || 'config').replace(/[^A-Za-z0-9._-]/g, '_')}.${ext}`, body, type);
}

// The snippets are made only while their panel is open.
export function renderEmbed() {
  if (!$('embed-details').open) return;
  const snippets = { view: page.embedAs, ...embedSnippets(page.state, page.embedAs, new URL('./', location.href).href) };
  showChanged($('embed-panel'), [snippets], () => embedView(snippets, {
    onView: (view) => { page.embedAs = view; renderEmbed(); }, onCopy: copy }, WIDGET_VIEWS));
}

/** Listens to the embed panel opening. */
export function wireSharing() {
  $('embed-details').addEventListener('toggle', renderEmbed);
}
