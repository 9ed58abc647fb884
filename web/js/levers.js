// What if: the serving knobs one can turn on this deployment, each alone and ranked by the
// sequences it adds; the layout on this GPU type that meets the target (the solver's); and the
// articles' architecture levers, shown apart as what a different model would hold.
import { KvscopeError } from './kvscope-client.js';
import { show } from './dom.js';
import { FIELDS, cardShareOf, engineInfo, planRequest } from './state.js';
import { solveRequest, stateOfOption } from './solve-request.js';
import { loadSolver, solverNow } from './solver.js';
import { drawWhatIf } from './charts.js';
import { whatIfView } from './views/what-if.js';
import { $, answerError, page, update } from './page.js';

/** Knobs of the deployment: each only where it changes something. */
function servingLevers(plan) {
  const s = page.state;
  const engine = engineInfo(s.engine);
  const list = [];
  if (plan.kv_dtype.name !== 'fp8' && (engine?.kv_dtype_choices ?? []).includes('fp8')) {
    list.push({ label: 'fp8 KV cache', short: 'fp8 KV', detail: `--kv-dtype fp8 (from ${plan.kv_dtype.name})`, change: { kv_dtype: 'fp8' } });
  }
  if (!plan.weights.method && s.weight_dtype === 'auto' && (engine?.load_time_weight_dtypes ?? []).includes('fp8')) {
    list.push({ label: 'fp8 weights, quantized as the engine loads them', short: 'fp8 weights', detail: '--quantization fp8', change: { weight_dtype: 'fp8' } });
  }
  list.push(...engineLevers(plan));
  const tp = s.tensor_parallel;
  list.push({ label: 'tensor parallel × 2', short: 'TP × 2', detail: `${tp} → ${tp * 2} GPUs per replica`,
    change: { tensor_parallel: tp * 2, gpus: s.gpus !== null ? Math.max(s.gpus, tp * 2 * s.pipeline_parallel) : null } });
  return list;
}

// The engine's own levers, as the core's engine table lists them (each at its request key, a field
// of the state), where they change the knob.
function engineLevers(plan) {
  return (engineInfo(page.state.engine)?.levers ?? []).filter((l) => FIELDS[l.key]).map((l) => {
    // A share of the card left to the engine is the one its budget took.
    const now = page.state[l.key] ?? cardShareOf(plan, l.key) ?? l.from;
    const value = l.step ? Math.min(1, now + l.step) : l.value;
    return { label: l.label, short: l.short_label, detail: l.step ? '' : `from ${now}`, change: { [l.key]: value } };
  }).filter((l) => Object.entries(l.change).some(([field, value]) => page.state[field] !== value));
}

/** The articles' levers: they change the model, not the deployment. */
function modelLevers(plan) {
  const g = plan.layer_groups.find((x) => x.kv_heads > 0);
  return [
    g && g.kv_heads > 1 ? { label: 'half the KV heads', short: '½ KV heads', detail: `${g.kv_heads} → ${Math.ceil(g.kv_heads / 2)}`, set: [`num_key_value_heads=${Math.ceil(g.kv_heads / 2)}`] } : null,
    { label: 'a 4,096-token sliding window on every layer', short: '4K window', detail: 'as Mistral-7B-v0.1 was trained', set: ['sliding_window=4096', 'use_sliding_window=true', 'max_window_layers=0'] },
    { label: '4-bit weights', short: '4-bit weights', detail: 'a 4-bit checkpoint of the model', change: { weight_dtype: 'int4' } },
  ].filter(Boolean);
}

function planned(lever) {
  try {
    return { ...lever, report: page.kv.plan(planRequest({ ...page.state, ...(lever.change ?? {}) }, lever.set ?? [])) };
  } catch (e) {
    if (!(e instanceof KvscopeError)) throw e;
    return { ...lever, error: answerError(e) };
  }
}

// The fewest GPUs of this type (and the knobs) that meet the target, when the plan does not. The
// solver's module is fetched the first time it is needed; meanwhile the line says so, and the panel
// is drawn again when it arrives (or with why it did not).
let waitingForSolver = false;
let solverLoadError = '';
function targetOnThisGpu(plan) {
  if (!plan.target || plan.target.met) return null;
  const kv = solverNow();
  if (!kv) {
    if (solverLoadError) {
      const error = solverLoadError;
      solverLoadError = '';  // the next change tries again
      return { error };
    }
    if (!waitingForSolver) {
      waitingForSolver = true;
      loadSolver().catch((e) => { solverLoadError = e.message; }).then(() => {
        waitingForSolver = false;
        if (page.whatIfOpen) runWhatIf();
      });
    }
    return { loading: true };
  }
  try {
    const r = kv.solve({ ...solveRequest(page.state), gpu: [page.state.gpu] });
    return { option: r.options[0] ?? null, met: r.met };
  } catch (e) {
    if (!(e instanceof KvscopeError)) throw e;
    return { error: e.message };
  }
}

export function runWhatIf() {
  page.whatIfOpen = true;
  const base = page.last.plan;
  const serving = servingLevers(base).map(planned);
  const model = modelLevers(base).map(planned);
  const onOpen = (o) => { page.state = stateOfOption(page.state, o, engineInfo(page.state.engine)?.one_server ?? false); update(); };
  show($('what-if-panel'), whatIfView({ serving, model, target: targetOnThisGpu(base) }, base, onOpen));
  $('chart-what-if').hidden = false;
  drawWhatIf(serving, base);
}

/** Listens to the what-if button. */
export function wireWhatIf() {
  $('what-if-run').addEventListener('click', runWhatIf);
}
