// The page's state from an explained start-up log (the deployment it describes, with what the
// engine measured), and back to kvscope's own estimate.
import { DEFAULTS } from './state.js';

/**
 * The state of an explained log's deployment (its plan_request): model, card or measured budget,
 * layout, engine, dtypes, context and what vLLM measured; `dropped` names the request's keys the
 * page has no control for (they stay in the CLI command the report prints).
 * @param {Record<string, any>} s the current state (what the log does not say is kept)
 * @param {import('./kvscope').ExplainReport} report
 * @param {string} configText the config.json the log was explained with ('' for a catalogue model)
 * @returns {{state: Record<string, any>, dropped: string[]}}
 */
export function stateOfExplain(s, report, configText = '') {
  const r = /** @type {Record<string, any>} */ ({ ...report.plan_request });
  const take = (key) => { const v = r[key]; delete r[key]; return v; };
  delete r.schema; delete r.command;
  /** @type {Record<string, any>} */
  const next = { ...s, ...DEFAULTS_OF_CALIBRATION, from_log: `${report.engine_label}${report.engine_version ? ` ${report.engine_version}` : ''} log, ${report.lines} lines` };
  const model = take('model');
  const config = take('config');
  if (model) Object.assign(next, { model, config: '', config_name: '' });
  else if (config) Object.assign(next, { config: configText, config_name: config.name ?? 'config.json' });
  next.engine = take('engine') ?? s.engine;
  next.engine_version = take('engine_version') ?? '';
  const gpu = take('gpu');
  const memory = take('gpu_memory_bytes');
  next.kv_memory_bytes = take('kv_memory_bytes') ?? 0;
  if (gpu) next.gpu = gpu;
  else if (memory && memory < 2 ** 50) Object.assign(next, { gpu: 'custom', gpu_memory_gb: memory / 1e9 });
  next.tp = take('tensor_parallel') ?? 1;
  next.pp = take('pipeline_parallel') ?? 1;
  next.gpus = take('gpus') ?? 0;
  next.kv_dtype = take('kv_dtype') ?? 'auto';
  next.weight_dtype = take('weight_dtype') ?? 'auto';
  const weights = take('weights_bytes');
  next.weights_gb = weights ? weights / 1e9 : 0;
  const context = take('max_model_len') ?? take('context_tokens');
  delete r.context_tokens;
  if (context) next.context = context;
  if (r.block_size_tokens) next.block_size = take('block_size_tokens');
  const set = take('set');
  if (set) next.set = Object.entries(set).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join('; ');
  const vllm = take('vllm') ?? {};
  if (vllm.gpu_memory_utilization) next.gpu_memory_utilization = vllm.gpu_memory_utilization;
  next.activation_bytes = vllm.activation_bytes ?? 0;
  next.non_torch_bytes = vllm.non_torch_bytes ?? 0;
  delete vllm.gpu_memory_utilization; delete vllm.activation_bytes; delete vllm.non_torch_bytes;
  const llama = take('llama_cpp') ?? {};
  if (llama.parallel) next.parallel = llama.parallel;
  delete llama.parallel;
  const dropped = [...Object.keys(r), ...Object.keys(vllm).map((k) => `vllm.${k}`),
    ...Object.keys(llama).map((k) => `llama_cpp.${k}`)];
  return { state: next, dropped };
}

/** What a calibration sets, cleared: a scenario the user builds by hand plans from the card. */
const DEFAULTS_OF_CALIBRATION = Object.freeze({ kv_memory_bytes: 0, activation_bytes: 0, non_torch_bytes: 0, from_log: '' });

/** The state without a log's calibration. */
export function uncalibrated(s) {
  return { ...s, ...DEFAULTS_OF_CALIBRATION };
}
