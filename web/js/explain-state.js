// The page's state from an explained start-up log (the deployment it describes, with what the
// engine measured) or a checked launch command, and back to kvscope's own estimate.
import { DEFAULTS, FIELDS } from './state.js';

/** The request's groups of engine options, read into the state's dotted fields ("vllm.x"). */
const ENGINE_GROUPS = ['vllm', 'sglang', 'tensorrt_llm', 'llama_cpp', 'ollama'];

/** What a log's deployment sets afresh, where the log does not say: its own layout, dtypes and weights. */
const DEPLOYMENT_FIELDS = ['tensor_parallel', 'pipeline_parallel', 'gpus', 'kv_dtype', 'weight_dtype', 'weights_bytes', 'engine_version'];

/** What a calibration sets, cleared: a scenario the user builds by hand plans from the card. */
const CALIBRATION_FIELDS = ['kv_memory_bytes', 'vllm.activation_bytes', 'vllm.non_torch_bytes', 'from_log'];

const defaultsOf = (fields) => Object.fromEntries(fields.map((f) => [f, DEFAULTS[f]]));

/**
 * The state of a plan request (an explained log's or a checked command's plan_request): model,
 * card or measured budget, layout, engine, dtypes, context and what the engine measured, each
 * request key into the field of its name; `dropped` names the request's keys the page has no
 * field for (they stay in the CLI command the report prints).
 * @param {Record<string, any>} s the current state (what the request does not say is kept)
 * @param {Record<string, any>} planRequest a kvscope.request/1 for plan
 * @param {string} configText the config.json it was read with ('' for a catalogue model)
 * @returns {{state: Record<string, any>, dropped: string[]}}
 */
export function stateOfPlanRequest(s, planRequest, configText = '') {
  const { model, config, gpu, gpu_memory_bytes: memory, max_model_len: maxModelLen, set, ...rest } = planRequest;
  delete rest.schema;
  delete rest.command;
  /** @type {Record<string, any>} */
  const next = { ...s, ...defaultsOf(DEPLOYMENT_FIELDS), ...defaultsOf(CALIBRATION_FIELDS) };
  if (model) Object.assign(next, { model, config: '', config_name: '' });
  else if (config) Object.assign(next, { config: configText, config_name: config.name ?? 'config.json' });
  if (gpu) next.gpu = gpu;
  else if (memory && memory < 2 ** 50) Object.assign(next, { gpu: 'custom', gpu_memory_bytes: memory });
  if (set) next.set = Object.entries(set).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join('; ');
  const dropped = [];
  for (const [key, value] of requestKeys(rest)) {
    if (value === null) continue;  // left out: as above
    if (key in FIELDS) next[key] = value;
    else dropped.push(key);
  }
  if (maxModelLen) next.context_tokens = maxModelLen;  // the engine's limit, over the workload's context
  return { state: next, dropped };
}

/**
 * The state of an explained log's deployment, calibrated with what the engine measured (the
 * banner above the verdict says so).
 * @param {Record<string, any>} s @param {import('./kvscope').ExplainReport} report
 * @param {string} configText the config.json the log was explained with ('' for a catalogue model)
 */
export function stateOfExplain(s, report, configText = '') {
  const { state, dropped } = stateOfPlanRequest(s, /** @type {Record<string, any>} */ (report.plan_request), configText);
  state.from_log = `${report.engine_label}${report.engine_version ? ` ${report.engine_version}` : ''} log, ${report.lines} lines`;
  return { state, dropped };
}

/** A request's keys and values, an engine group's as "group.key". */
function requestKeys(request) {
  return Object.entries(request).flatMap(([key, value]) => (ENGINE_GROUPS.includes(key) && value
    ? Object.entries(value).map(([name, v]) => [`${key}.${name}`, v]) : [[key, value]]));
}

/** The state without a log's calibration. */
export function uncalibrated(s) {
  return { ...s, ...defaultsOf(CALIBRATION_FIELDS) };
}
