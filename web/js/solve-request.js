// The solver's side of the page's state: the kvscope.request/1 of `solve`, the prices the user
// typed, and the state that plans one of the solver's options.
import { engineInfo, modelSource, planRequest, setAt } from './state.js';

/**
 * The kvscope.request/1 of `solve`: the plan's model, engine and knobs, the target (`batch`
 * sequences of `context_tokens` tokens) and what the solver may choose; the layout, KV dtype and weights
 * are its own.
 * @param {Record<string, any>} s a state
 * @returns {import('./kvscope').SolveRequest}
 */
export function solveRequest(s) {
  const plan = planRequest(s);
  /** @type {import('./kvscope').SolveRequest} */
  const request = {
    ...modelSource(s),
    engine: plan.engine,
    engine_version: plan.engine_version,
    set: plan.set,
    gpu_memory_bytes: plan.gpu_memory_bytes,
    gpu_bandwidth_bytes_per_s: plan.gpu_bandwidth_bytes_per_s,
    gpu_dense_tflops: plan.gpu_dense_tflops,
    weights_bytes: plan.weights_bytes,
    weights_index: plan.weights_index,
    allow_long_context: plan.allow_long_context,
    serve_base: plan.serve_base,
    speculative_config: plan.speculative_config,
    context_tokens: s.context_tokens,
    concurrency: s.batch,
    prompt_lengths: plan.prompt_lengths,
    output_lengths: plan.output_lengths,
    min_decode_tokens_per_s: s.min_decode_tokens_per_s,
    max_ttft_s: s.max_ttft_s,
    max_gpus: s.max_gpus,
    gpu: s.solve_gpus ? s.solve_gpus.split(',') : null,
    prices_usd_per_hour: Object.keys(pricesOf(s.prices_usd_per_hour)).length ? pricesOf(s.prices_usd_per_hour) : null,
  };
  // The engine's knobs, but not llama.cpp's slots: the solver picks them.
  for (const key of engineInfo(s.engine)?.knobs ?? []) {
    if (key !== 'llama_cpp.parallel') setAt(request, key, s[key] ?? null);
  }
  return request;
}

/** "id:2.5,id:0.8" -> {id: 2.5, ...} (the prices the user typed). */
export function pricesOf(text) {
  /** @type {Record<string, number>} */
  const out = {};
  for (const item of String(text ?? '').split(',').filter(Boolean)) {
    const [id, usd] = item.split(':');
    out[id] = Number(usd);
  }
  return out;
}

/** {id: 2.5, ...} -> "id:2.5,..." */
export function pricesText(prices) {
  return Object.entries(prices).filter(([, usd]) => Number.isFinite(usd) && usd >= 0)
    .map(([id, usd]) => `${id}:${usd}`).join(',');
}

/**
 * The state that plans a solver's option: its GPUs and layout, KV dtype and weights (another
 * catalogue checkpoint when it chose one); one-server engines' replicas are their slots and -c.
 * @param {Record<string, any>} s @param {import('./kvscope').SolveOption} o
 * @param {boolean} servers the engine runs one server per replica (llama.cpp: EngineInfo.one_server)
 */
export function stateOfOption(s, o, servers) {
  /** @type {Record<string, any>} */
  const next = { ...s, gpu: o.gpu, kv_dtype: o.kv_dtype };
  if (o.checkpoint) Object.assign(next, { model: o.checkpoint, config: '', config_name: '', weight_dtype: 'auto' });
  else next.weight_dtype = o.weights_choice;
  if (servers) {
    const slots = Math.ceil(s.batch / o.dp);
    return { ...next, tensor_parallel: 1, pipeline_parallel: 1, gpus: o.pp, 'llama_cpp.parallel': slots,
      context_tokens: slots * o.max_model_len };
  }
  return { ...next, tensor_parallel: o.tp, pipeline_parallel: o.pp, gpus: o.gpus, context_tokens: o.max_model_len };
}
