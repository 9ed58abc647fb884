// config.json sources: pasted, opened, dropped or loaded from Hugging Face (only on click, only
// that host), and the checkpoint's model.safetensors.index.json beside it.
import { KvscopeError } from './kvscope-client.js';
import { indexTotalSize, quote } from './state.js';
import { $, page, showInputError, update, useFullModule } from './page.js';

/**
 * Plans with a config.json's text (read by the full module, fetched the first time); false (and
 * the core's error beside the text) when refused.
 */
export async function useConfig(text, name) {
  if (text.length > (1 << 20)) { showInputError('config.json: larger than 1 MiB', 'config-text'); return false; }
  let kv;
  try {
    kv = await useFullModule();
  } catch {  // the status line under the verdict says why
    showInputError(`config.json: not read, kvscope's config.json reader did not load`, 'config-text');
    return false;
  }
  try {
    kv.importConfig(text, name);
  } catch (e) {
    if (!(e instanceof KvscopeError)) throw e;
    showInputError(e.message, 'config-text');
    return false;
  }
  page.state.config = text;
  page.state.config_name = name;
  update();
  return true;
}

// A Hugging Face repository id: org/name.
const HF_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}\/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;

/** Fetches a repository's config.json (and its index) while the button says so and waits. */
export async function loadFromHuggingFace() {
  const id = $('hf-id').value.trim();
  if (!HF_ID.test(id)) { showInputError(`Hugging Face id: expected org/name, got ${quote(id)}`, 'hf-id'); return; }
  const button = /** @type {HTMLButtonElement} */ ($('hf-load'));
  const shown = $('model-source').textContent;
  button.disabled = true;
  button.textContent = 'Loading…';
  $('model-source').textContent = `Loading ${id}'s config.json from huggingface.co…`;
  try {
    if (!(await fetchConfig(id))) $('model-source').textContent = shown;  // the error says why
  } finally {
    button.disabled = false;
    button.textContent = 'Load';
  }
}

// True when the config was fetched and handed to useConfig.
async function fetchConfig(id) {
  const url = `https://huggingface.co/${id}/resolve/main/config.json`;
  let response;
  try {
    response = await fetch(url, { credentials: 'omit', referrerPolicy: 'no-referrer', mode: 'cors' });
  } catch {
    showInputError(`Hugging Face: could not reach huggingface.co (offline or blocked); paste the config.json instead`, 'hf-id');
    return false;
  }
  if (response.status === 401 || response.status === 403) {
    showInputError(`Hugging Face: ${quote(id)} is gated or private (HTTP ${response.status}); accept its licence on huggingface.co, then paste its config.json`, 'hf-id');
    return false;
  }
  if (!response.ok) { showInputError(`Hugging Face: ${quote(id)} has no config.json (HTTP ${response.status})`, 'hf-id'); return false; }
  const text = await response.text();
  $('config-text').value = text;
  page.state.checkpoint_bytes = await fetchIndexTotal(id);
  return useConfig(text, id);
}

// The repository's model.safetensors.index.json beside its config.json (same host, same click);
// null when it has none (a single-file checkpoint) or it cannot be read.
async function fetchIndexTotal(id) {
  try {
    const response = await fetch(`https://huggingface.co/${id}/resolve/main/model.safetensors.index.json`,
      { credentials: 'omit', referrerPolicy: 'no-referrer', mode: 'cors' });
    if (!response.ok) return null;
    const total = indexTotalSize(await response.text());
    return total.ok ? total.value : null;
  } catch {
    return null;
  }
}

export function useIndex(text) {
  const total = indexTotalSize(text);
  if (!total.ok) { showInputError(total.message, 'index-file'); return; }
  page.state.checkpoint_bytes = total.value;
  update();
}

/**
 * A pasted config's name: the repository id it names (`_name_or_path`, which launch commands then
 * use), else its architecture or model type beside "pasted config.json".
 */
export function pastedName(text) {
  let c = null;
  try { c = JSON.parse(text); } catch { /* Python's Infinity or a typo: the core reports it */ }
  if (!c || typeof c !== 'object') return 'pasted config.json';
  if (typeof c._name_or_path === 'string' && HF_ID.test(c._name_or_path)) return c._name_or_path;
  const kind = (Array.isArray(c.architectures) && typeof c.architectures[0] === 'string' && c.architectures[0]) ||
    (typeof c.model_type === 'string' && c.model_type);
  return kind ? `pasted config.json (${String(kind).slice(0, 60)})` : 'pasted config.json';
}

/** Listens to the config and index inputs and the Hugging Face button. */
export function wireConfigSources() {
  $('use-config').addEventListener('click', () => useConfig($('config-text').value, pastedName($('config-text').value)));
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
  $('clear-index').addEventListener('click', () => { page.state.checkpoint_bytes = null; update(); });
  $('hf-load').addEventListener('click', loadFromHuggingFace);
}
