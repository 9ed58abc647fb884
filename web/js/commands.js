// The same scenario as text: the kvscope command that reproduces the page's numbers, the engine's
// launch flags, and the exports (JSON, CSV, Markdown).
import { DEFAULTS, mtpConfig, planRequest, shellWord } from './state.js';

/**
 * `kvscope plan ...` for the state, as the core writes the request's flags; a pasted config is
 * read from a file of its name.
 * @param {import('./kvscope-client.js').Kvscope} kv
 */
export function cliCommand(kv, state) {
  return ['kvscope', ...kv.commandLine('plan', planRequest(state))].map(shellWord).join(' ');
}

// The engines' own KV dtype names (vLLM --kv-cache-dtype, SGLang --kv-cache-dtype, llama.cpp -ctk).
const VLLM_KV = { fp8: 'fp8', fp8_e5m2: 'fp8_e5m2', fp16: 'auto', bf16: 'auto', auto: 'auto' };
const SGLANG_KV = { fp8: 'fp8_e4m3', fp8_e5m2: 'fp8_e5m2', fp16: 'auto', bf16: 'auto', auto: 'auto' };

/**
 * The engine's launch command for the scenario, or null (plain arithmetic has no engine).
 * @param {any} state @param {import('./kvscope').PlanReport} report the plan report (for the model's Hugging Face id)
 */
export function engineCommand(state, report, hfId) {
  const model = hfId || state.config_name || report.model.id || 'MODEL';
  const kv = report.kv_dtype.name;
  const words = [];
  const add = (...w) => words.push(...w.map(String));
  switch (state.engine) {
    case 'vllm':
      if (state.allow_long_context === 1) add('VLLM_ALLOW_LONG_MAX_MODEL_LEN=1');
      add('vllm', 'serve', model, '--max-model-len', state.context, '--gpu-memory-utilization', state.gpu_memory_utilization);
      if (state.mtp_tokens > 0) add('--speculative-config', JSON.stringify(mtpConfig(state.mtp_tokens)));
      if (state.kv_dtype !== 'auto') add('--kv-cache-dtype', VLLM_KV[kv] ?? kv);
      if (state.tp > 1) add('--tensor-parallel-size', state.tp);
      if (state.pp > 1) add('--pipeline-parallel-size', state.pp);
      if (state.block_size > 0) add('--block-size', state.block_size);
      break;
    case 'sglang':
      if (state.allow_long_context === 1) add('SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1');
      add('python', '-m', 'sglang.launch_server', '--model-path', model, '--context-length', state.context);
      if (state.mem_fraction_static > 0) add('--mem-fraction-static', state.mem_fraction_static);
      if (state.mamba_full_memory_ratio !== DEFAULTS.mamba_full_memory_ratio) {
        add('--mamba-full-memory-ratio', state.mamba_full_memory_ratio);
      }
      if (state.kv_dtype !== 'auto') add('--kv-cache-dtype', SGLANG_KV[kv] ?? kv);
      if (state.tp > 1) add('--tp', state.tp);
      if (state.pp > 1) add('--pp', state.pp);
      break;
    case 'tensorrt-llm':
      add('trtllm-serve', model, '--max_seq_len', state.context,
        '--kv_cache_free_gpu_memory_fraction', state.free_gpu_memory_fraction);
      if (state.tp > 1) add('--tp_size', state.tp);
      if (state.pp > 1) add('--pp_size', state.pp);
      break;
    case 'llama.cpp':
      // llama-server's -c is the context of all slots together (n_ctx split over --parallel).
      add('llama-server', '-m', 'model.gguf', '-c', state.context * state.parallel, '--parallel', state.parallel);
      if (state.kv_dtype !== 'auto') add('-ctk', kv, '-ctv', kv);
      break;
    default:
      return null;
  }
  return words.map(shellWord).join(' ');
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
    ['max_concurrency', r.max_concurrency, 'sequences of max_model_len'],
    ['max_context', r.max_context, 'tokens'],
    ['starts', r.starts, ''],
    ['max_model_len_that_fits', r.max_model_len_that_fits, 'tokens'],
  ];
}

/** RFC 4180 CSV of the summary rows. */
export function toCsv(r) {
  const cell = (v) => (/[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
  return ['field,value,unit', ...summaryRows(r).map((row) => row.map(cell).join(','))].join('\n') + '\n';
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
  const attributes = fields.map(([k, v]) => ` ${k.replace(/_/g, '-')}="${escapeAttribute(v)}"`).join('');
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
