// A typed caller of the JS API, checked by tsc: the requests below must match kvscope.d.ts and
// the reports' fields must exist there (tests/wasm/types.test.mjs runs the check).
import { loadKvscope, KvscopeError } from '../../web/js/kvscope-client.js';

export async function example() {
  const kv = await loadKvscope();
  /** @type {import('../../web/js/kvscope').PlanRequest} */
  const request = {
    model: 'llama-3.1-8b', gpu_memory_bytes: 24e9, max_model_len: 131072,
    vllm: { gpu_memory_utilization: 0.9 }, llama_cpp: { tensor_split: [3, 1] }, set: { num_key_value_heads: 4 },
  };
  const plan = kv.plan(request);
  /** @type {boolean} */ const starts = plan.starts;
  /** @type {number} */ const fits = plan.max_model_len_that_fits;
  /** @type {number | null} */ const slots = plan.state_pool ? plan.state_pool.slots : null;
  const sweeps = kv.sweep({ ...request, sweep: { points: 48 } });
  /** @type {Array<[number, number]>} */ const points = sweeps.concurrency_vs_context.points;
  const estimate = kv.estimate({ model: 'llama-3.1-8b', context_tokens: 131072 });
  /** @type {number} */ const perToken = estimate.layer_groups[0].kv_bytes_per_token;
  /** @type {string[]} */ const args = kv.commandLine('plan', request);
  try { kv.plan({ model: 'llama-3.1-8b', context_tokens: 0 }); } catch (e) {
    if (e instanceof KvscopeError) return [e.code, e.field];
  }
  return [starts, fits, slots, points, perToken, args, kv.gpus().gpus[0].memory_bytes];
}

export async function solveExample() {
  const kv = await loadKvscope({ full: true });  // the solver and the log reader: the full module
  /** @type {import('../../web/js/kvscope').SolveRequest} */
  const request = { model: 'qwen3-32b', concurrency: 20, context_tokens: 32768, gpu: ['h100-sxm-80gb'],
    prices_usd_per_hour: { 'h100-sxm-80gb': 2.5 }, min_decode_tokens_per_s: 20, engine: 'sglang' };
  const r = kv.solve(request);
  /** @type {boolean} */ const met = r.met;
  const best = r.options[0];
  /** @type {number | null} */ const usd = best.usd_per_hour;
  /** @type {string} */ const command = best.command;
  /** @type {string | null} */ const constraint = r.gpus[0].cheaper_failures[0]?.binding_constraint ?? null;
  /** @type {string[]} */ const args = kv.commandLine('solve', request);
  return [met, best.gpus, best.tp, best.pp, best.dp, usd, command, constraint, args];
}

export async function explainExample() {
  const kv = await loadKvscope({ full: true });
  const r = kv.explain({ log: { name: 'vllm.log', text: 'INFO ... GPU KV cache size: 973,760 tokens' }, model: 'llama-3.1-8b' });
  /** @type {string} */ const engine = r.engine;
  return [engine, r.figures.length];
}
