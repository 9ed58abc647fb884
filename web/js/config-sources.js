// config.json sources: pasted, opened, dropped or loaded from Hugging Face (only on click, only
// that host), and the checkpoint's model.safetensors.index.json beside it.
import { KvscopeError } from './kvscope-client.js';
import { indexTotalSize, quote } from './state.js';
import { $, page, showInputError, update } from './page.js';

export function useConfig(text, name) {
  if (text.length > (1 << 20)) { showInputError('config.json: larger than 1 MiB', 'config-text'); return; }
  try {
    page.kv.importConfig(text, name);
  } catch (e) {
    if (!(e instanceof KvscopeError)) throw e;
    showInputError(e.message, 'config-text');
    return;
  }
  page.state.config = text;
  page.state.config_name = name;
  update();
}

export async function loadFromHuggingFace() {
  const id = $('hf-id').value.trim();
  const checked = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}\/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/.test(id);
  if (!checked) { showInputError(`Hugging Face id: expected org/name, got ${quote(id)}`, 'hf-id'); return; }
  const url = `https://huggingface.co/${id}/resolve/main/config.json`;
  let response;
  try {
    response = await fetch(url, { credentials: 'omit', referrerPolicy: 'no-referrer', mode: 'cors' });
  } catch {
    showInputError(`Hugging Face: could not reach huggingface.co (offline or blocked); paste the config.json instead`, 'hf-id');
    return;
  }
  if (response.status === 401 || response.status === 403) {
    showInputError(`Hugging Face: ${quote(id)} is gated or private (HTTP ${response.status}); accept its licence on huggingface.co, then paste its config.json`, 'hf-id');
    return;
  }
  if (!response.ok) { showInputError(`Hugging Face: ${quote(id)} has no config.json (HTTP ${response.status})`, 'hf-id'); return; }
  const text = await response.text();
  $('config-text').value = text;
  page.state.checkpoint_bytes = await fetchIndexTotal(id);
  useConfig(text, id);
}

// The repository's model.safetensors.index.json beside its config.json (same host, same click);
// 0 when it has none (a single-file checkpoint) or it cannot be read.
async function fetchIndexTotal(id) {
  try {
    const response = await fetch(`https://huggingface.co/${id}/resolve/main/model.safetensors.index.json`,
      { credentials: 'omit', referrerPolicy: 'no-referrer', mode: 'cors' });
    if (!response.ok) return 0;
    const total = indexTotalSize(await response.text());
    return total.ok ? total.value : 0;
  } catch {
    return 0;
  }
}

export function useIndex(text) {
  const total = indexTotalSize(text);
  if (!total.ok) { showInputError(total.message, 'index-file'); return; }
  page.state.checkpoint_bytes = total.value;
  update();
}

/** Listens to the config and index inputs and the Hugging Face button. */
export function wireConfigSources() {
  $('use-config').addEventListener('click', () => useConfig($('config-text').value, 'pasted config.json'));
  $('config-file').addEventListener('change', async () => {
    const file = $('config-file').files[0];
    if (file) useConfig(await file.text(), file.name);
  });
  $('config-text').addEventListener('drop', async (event) => {
    const file = event.dataTransfer?.files?.[0];
    if (!file) return;
    event.preventDefault();
    const text = await file.text();
    $('config-text').value = text;
    useConfig(text, file.name);
  });
  $('clear-config').addEventListener('click', () => { page.state.config = ''; page.state.config_name = ''; update(); });
  $('index-file').addEventListener('change', async () => {
    const file = $('index-file').files[0];
    if (file) useIndex(await file.text());
  });
  $('clear-index').addEventListener('click', () => { page.state.checkpoint_bytes = 0; update(); });
  $('hf-load').addEventListener('click', loadFromHuggingFace);
}
