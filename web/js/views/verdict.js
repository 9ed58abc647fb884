// "Will the engine start?": the headline a newcomer reads first, with the engine's own error text
// and the largest max_model_len that fits.
import { h } from '../dom.js';
import { commas } from '../format.js';
import { engineLabel } from '../state.js';

/**
 * @param {import('../kvscope').PlanReport} report from `plan`
 * @param {{onUseContext: (tokens: number) => void}} handlers
 */
export function verdictView(report, handlers) {
  const engine = engineLabel(report.input.engine, report.engine_version?.id);
  const model = report.model.name;
  const card = report.gpu.name;
  const starts = report.starts;
  const fits = report.max_model_len_that_fits;
  // A started engine that holds fewer sequences than asked for has not answered the question.
  const target = report.target;
  const missed = starts && target !== null && !target.met;
  const slots = report.ollama && report.ollama.num_parallel > 1 ? ` in ${report.ollama.num_parallel} slots` : '';
  const at = report.ollama ? `${model} on ${card} at num_ctx ${commas(report.ollama.num_ctx)}${slots}`
    : `${model} on ${card} at max_model_len ${commas(report.max_model_len)}`;
  return h('div', { class: `verdict ${starts && !missed ? 'ok' : 'bad'}`,
    'data-starts': String(starts), 'data-fits': String(fits), 'data-target-met': String(target ? target.met : true) },
    h('p', { class: 'headline', id: 'verdict-headline' },
      missed ? `${target.reason[0].toUpperCase()}${target.reason.slice(1)}: ${engine} starts ${at}, short of the target`
        : starts ? `${engine} starts: ${at}` : `${engine} will not start: ${at}`),
    !starts && report.startup_error ? h('p', { class: 'engine-error', id: 'startup-error' }, report.startup_error) : null,
    !starts && fits > 0 ? h('p', {},
      `The largest max_model_len that fits is ${commas(fits)} tokens. `,
      h('button', { type: 'button', id: 'use-fitting-context', onclick: () => handlers.onUseContext(fits) },
        `Use ${commas(fits)}`)) : null,
    !starts && fits === 0 ? h('p', {}, 'Not even a short request fits: the weights and the engine reserve take the whole budget.') : null,
    spill(report),
    closeCall(report));
}

// Layers a server that fits them to the card (Ollama: llama.cpp's --fit) left on the CPU.
function spill(report) {
  const o = report.offload;
  if (!report.starts || !o || o.gpu_layers >= o.layers) return null;
  const longest = report.max_context > 0
    ? ` Every layer stays on the GPU up to num_ctx ${commas(report.max_model_len_that_fits)}.` : '';
  return h('p', { class: 'warn', id: 'verdict-spill' },
    `Only ${o.gpu_layers} of ${o.layers} layers fit on the GPU beside the cache: the other ${o.layers - o.gpu_layers} run on the CPU, and every token waits on host memory.${longest}`);
}

// Where the answer turns on what kvscope estimates (vLLM's activation peak, non-torch memory).
function closeCall(report) {
  const e = report.estimated_budget;
  if (!e || e.starts[0] === e.starts[1]) return null;
  return h('p', { class: 'warn', id: 'verdict-close-call' },
    `A close call: vLLM measures its activation peak and non-torch memory at start-up, and across the range published measurements give it starts only when they come out low (max_model_len ${commas(e.max_model_len_that_fits[0])} to ${commas(e.max_model_len_that_fits[1])} fits). Paste its start-up log below to settle it.`);
}
