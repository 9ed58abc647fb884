// The card: where its memory goes, how many sequences the KV pool holds, and the decode/prefill
// roofline (estimates from datasheet peaks).
import { h } from '../dom.js';
import { commas, ratio, rate, seconds, sequencesThatFit } from '../format.js';

const LABELS = {
  weights: 'weights', kv_pool: 'KV pool', state_pool: 'recurrent-state pool', engine_reserve: 'engine reserve (activations, non-torch)',
  cuda_graphs: 'CUDA graphs',
  not_given_to_the_engine: 'held back (utilization < 1)', free: 'free',
};

/**
 * The memory table, which is the bar's legend too: each row's swatch is its part's colour there.
 * @param {import('../kvscope').SweepsReport} sweeps @param {any} fmt
 */
export function memoryView(sweeps, fmt, card) {
  const rows = Object.entries(sweeps.memory_breakdown_per_gpu);
  return h('table', { class: 'memory', id: 'memory-table' },
    h('caption', {}, card ? `Per GPU: ${card}` : 'Per GPU'),
    h('tbody', {}, rows.map(([key, bytes]) => h('tr', {},
      h('th', { scope: 'row' }, h('span', { class: `swatch part-${key}`, 'aria-hidden': 'true' }), LABELS[key.replace(/_bytes$/, '')] ?? key),
      h('td', { 'data-key': key, 'data-value': bytes }, fmt.bytes(bytes)),
      h('td', { class: 'exact' }, `${commas(bytes)} bytes`)))));
}

/** vLLM's estimated budget terms as the range published measurements give, and what it moves. */
function estimatedFigures(r, fmt) {
  const e = r.estimated_budget;
  if (!e) return [];
  const span = ([low, high], show) => (show(low) === show(high) ? show(low) : `${show(low)} to ${show(high)}`);
  const bytes = (b) => fmt.bytes(b);
  return [h('dt', {}, 'Estimated, not measured'),
    h('dd', { id: 'estimated-budget', 'data-low': e.kv_pool_bytes[0], 'data-high': e.kv_pool_bytes[1] },
      `KV pool ${span(e.kv_pool_bytes, bytes)}, ${span(e.max_concurrency, ratio)} requests as the engine counts them`,
      h('span', { class: 'exact' }, `: activation peak ${span(e.activation_bytes, bytes)}, non-torch memory ${span(e.non_torch_bytes, bytes)}` +
        `${e.cudagraph_bytes[1] > 0 ? ` and CUDA graphs ${span(e.cudagraph_bytes, bytes)}` : ''} (${e.source})`))];
}

/** SGLang's recurrent-state slots and the request cap they set, when the report has them. */
function statePoolFigures(r, fmt) {
  const s = r.state_pool;
  return [
    ...(s ? [h('dt', {}, 'Recurrent-state pool'),
      h('dd', { id: 'state-pool', 'data-value': s.bytes, 'data-slots': s.slots }, fmt.bytes(s.bytes),
        h('span', { class: 'exact' }, ` ${commas(s.slots)} slots (+1 padding) of ` +
          `${fmt.bytes(s.conv_bytes_per_slot + s.ssm_bytes_per_slot)}: convolution in ${s.conv_dtype}, SSM in ${s.ssm_dtype}`))] : []),
    ...(r.max_running_requests ? [h('dt', {}, 'Requests the engine runs at once'),
      h('dd', { id: 'max-running-requests', 'data-value': r.max_running_requests }, commas(r.max_running_requests))] : []),
  ];
}

/** Why the engine's own figure differs from what fits, in one line. */
function engineFigureWhy(r) {
  if (r.kv_cache_groups) return `what its log prints as "Maximum concurrency": each request counted at max_model_len in every group, windowed groups with one step's tokens beside the window`;
  if (r.input.engine === 'vllm') return 'what its log prints as "Maximum concurrency": whole blocks of max_model_len tokens per request';
  return 'as the engine counts requests of max_model_len';
}

/** @param {import('../kvscope').PlanReport} r */
export function capacityView(r, fmt) {
  const ctx = r.max_model_len;
  const fits = sequencesThatFit(r);
  const dl = h('dl', { class: 'figures' },
    h('dt', {}, 'KV pool'), h('dd', { id: 'kv-pool', 'data-value': r.kv_pool_bytes, 'data-tokens': r.kv_pool_tokens }, fmt.bytes(r.kv_pool_bytes),
      h('span', { class: 'exact' }, ` ${commas(r.kv_pool_tokens)} tokens${r.kv_cache_groups ? ' as vLLM prints them (below: what that means for a hybrid)' : ''}` +
        (r.num_blocks > 0 ? ` in ${commas(r.num_blocks)} blocks of ${r.block_size_tokens}` : '') +
        (r.swa_pool_tokens ? ` in the full layers, ${commas(r.swa_pool_tokens)} in the sliding ones` : ''))),
    ...estimatedFigures(r, fmt),
    ...statePoolFigures(r, fmt),
    h('dt', {}, `Sequences of ${commas(r.target?.context_tokens ?? ctx)} tokens that fit`),
    h('dd', { id: r.sequences_that_fit !== null ? 'sequences-that-fit' : 'max-concurrency', 'data-value': fits }, ratio(fits),
      r.parallelism.gpus > 1 ? h('span', { class: 'exact' }, ` per ${r.parallelism.experts_over_gpus ? 'data-parallel rank' : 'replica'}; ${ratio(r.totals.sequences_that_fit ?? r.totals.max_concurrency)} over ${r.parallelism.gpus} GPUs` +
        (r.parallelism.experts_over_gpus ? `, the experts spread over all ${r.parallelism.experts_over_gpus} of them` : '')) : null),
    r.sequences_that_fit !== null ? [h('dt', {}, `${r.input.engine === 'vllm' ? 'vLLM' : 'The engine'}'s own figure`),
      h('dd', { id: 'max-concurrency', 'data-value': r.max_concurrency }, `${ratio(r.max_concurrency)} requests of ${commas(ctx)} tokens`,
        h('span', { class: 'exact' }, `: ${engineFigureWhy(r)}`))] : null,
    h('dt', {}, 'Longest single sequence'), h('dd', { id: 'max-context', 'data-value': r.max_context ?? '' },
      r.max_context === null ? 'unbounded (no layer keeps per-token KV)' : `${commas(r.max_context)} tokens`),
    h('dt', {}, 'Weights per GPU'), h('dd', { id: 'weights-per-gpu', 'data-value': r.weights_bytes }, fmt.bytes(r.weights_bytes),
      h('span', { class: 'exact' }, ` ${commas(r.parameters.total)} parameters in ${r.weight_dtype.name}`)),
    r.weights ? h('dt', {}, 'Stored as') : null,
    r.weights ? h('dd', { id: 'weights-source' }, r.weights.source,
      h('span', { class: 'exact' }, ` (checkpoint ${fmt.bytes(r.weights.checkpoint_bytes)})`)) : null);
  const w = r.workload;
  return h('div', {}, dl, hybridView(r, fmt), w ? h('p', { id: 'workload' },
    `With these length distributions a sequence holds ${fmt.size(w.mean_kv_bytes_per_sequence)} on average: `,
    h('strong', {}, `${ratio(w.expected_concurrency)} sequences`), ' fit on average, ',
    h('strong', {}, `${commas(w.p99_concurrency)}`), ' with 99% confidence.') : null);
}

const GROUP_KINDS = {
  full: 'full-attention', sliding_window: 'sliding-window', chunked: 'chunked-attention', mamba: 'Mamba-state',
  compressed: 'compressed-latent', compressor_state: 'compressor-state',  // DeepSeek-V4
};
const kindOf = (t) => GROUP_KINDS[t.attention] ?? t.attention;

/**
 * vLLM's hybrid allocator in plain words: the groups, what each holds for one request, and why
 * its printed token count is not the capacity (the pool's figures otherwise look contradictory).
 * @param {import('../kvscope').PlanReport} r
 */
function hybridView(r, fmt) {
  const g = r.kv_cache_groups;
  if (!g) return null;
  const len = commas(r.max_model_len);
  const kinds = g.types.map((t) => `${commas(t.groups)} ${kindOf(t)} group${t.groups === 1 ? '' : 's'}` +
    (t.window_tokens ? ` (${t.attention === 'chunked' ? 'chunks' : 'window'} of ${commas(t.window_tokens)} tokens)` : ''));
  const holds = (t) => (t.attention === 'mamba' ? `${commas(t.blocks_per_request)} block${t.blocks_per_request === 1 ? '' : 's'} (the request's state, whatever its length)`
    : t.window_tokens ? `${commas(t.blocks_per_request)} blocks (the ${t.attention === 'chunked' ? 'chunk' : 'window'} and the ${commas(r.max_num_batched_tokens)} tokens one step may add, not the whole request)`
      : `${commas(t.blocks_per_request)} blocks (every token)`);
  const groups = g.types.reduce((n, t) => n + t.groups, 0);
  const padding = g.types.filter((t) => t.padding_layers > 0);
  return h('div', { id: 'hybrid-accounting', 'data-blocks-per-request': g.blocks_per_request },
    h('h3', {}, 'How vLLM counts this hybrid model'),
    g.types.some((t) => t.attention === 'compressed')
      ? h('p', {}, `vLLM keeps DeepSeek-V4's caches in ${commas(groups)} groups: ${kinds.join(' and ')}. They draw on one pool of ${commas(r.num_blocks)} blocks; a block is ${commas(g.group_size_layers)} layer tuples, each one page of every compressed page size (${fmt.size(g.page_bytes * g.group_size_layers)}), ${commas(r.block_size_tokens)} tokens of the compressed caches.`)
      : h('p', {}, `vLLM keeps the layers in ${commas(groups)} groups of ${commas(g.group_size_layers)} layers: ${kinds.join(' and ')}. They draw on one pool of ${commas(r.num_blocks)} blocks; a block is ${commas(r.block_size_tokens)} tokens of one group's ${commas(g.group_size_layers)} layers (${fmt.size(g.page_bytes * g.group_size_layers)}).`),
    h('ul', {}, g.types.map((t) => h('li', {}, `Each ${kindOf(t)} group takes ${holds(t)} for a request of ${len} tokens.`))),
    h('p', {}, `One request takes ${commas(g.blocks_per_request)} blocks in all, so ${commas(r.num_blocks)} ÷ ${commas(g.blocks_per_request)} = `,
      h('strong', {}, `${ratio(r.max_concurrency)} requests`), ` of ${len} tokens, vLLM's "Maximum concurrency"; one sequence can grow to ${r.max_context === null ? 'any length' : `${commas(r.max_context)} tokens`}.` +
      (r.sequences_that_fit !== null && Math.abs(r.sequences_that_fit - r.max_concurrency) >= 0.01
        ? ` Once their windows have slid, running requests hold only their window and last block in the windowed groups: ${ratio(r.sequences_that_fit)} fit.` : '')),
    r.kv_bytes_needed_for_max_model_len > r.kv_bytes_per_sequence ? h('p', { id: 'hybrid-reserved' },
      `vLLM sets aside ${fmt.bytes(r.kv_bytes_needed_for_max_model_len)} per request, not the ${fmt.bytes(r.kv_bytes_per_sequence)} its layers keep (KV bytes per token, above): whole blocks of every layer slot of a group, padding included` +
      `${g.types.some((t) => t.window_tokens) ? ', and in each windowed group the tokens of one step beside the window' : ''}.`) : null,
    h('p', { id: 'hybrid-printed' }, r.kv_pool_tokens === Math.floor(r.max_concurrency * r.max_model_len)
      // From 0.21 the printed size is the concurrency in tokens (get_kv_cache_capacity).
      ? `vLLM's log prints "GPU KV cache size: ${commas(r.kv_pool_tokens)} tokens": ${ratio(r.max_concurrency)} requests × ${len} tokens, what the pool holds when every request is that long; shorter requests leave their groups' blocks to others.`
      : `vLLM's log prints "GPU KV cache size: ${commas(r.kv_pool_tokens)} tokens": ${commas(r.num_blocks)} blocks ÷ ${commas(groups)} groups × ${commas(r.block_size_tokens)}, as if every token took a block in every group. For this model that understates the capacity; the figures above are what fits.`),
    padding.length ? h('p', {}, `vLLM pads the last ${padding.map(kindOf).join(' and ')} group with ${padding.map((t) => commas(t.padding_layers)).join(' and ')} empty layer slot${padding.length === 1 && padding[0].padding_layers === 1 ? '' : 's'}: memory it allocates and never uses.`) : null);
}

/** @param {import('../kvscope').PlanReport} r */
export function rooflineView(r) {
  const rf = r.roofline;
  if (!rf.available) return h('p', { class: 'muted', id: 'roofline' }, `No roofline: ${rf.reason}.`);
  const step = (id, label, s) => [h('dt', {}, label),
    h('dd', { id, 'data-value': s.tokens_per_s, 'data-time': s.time_s }, `${seconds(s.time_s)} (${s.bound}-bound), ${rate(s.tokens_per_s)} tokens/s`)];
  const capped = rf.decode_at_kv_capped_batch;
  // A step for a batch the pool cannot hold (or an engine that does not start) says so.
  const caveats = [
    rf.decode.replicas > 1 ? `Per replica: ${rf.decode.replicas} replicas share the batch.` : null,
    !rf.decode.batch_fits_kv_pool ? `The KV pool holds ${commas(rf.kv_capped_batch)} of these sequences, not ${commas(rf.decode.batch)}: the first step is one the engine cannot run.` : null,
    r.starts === false ? 'The engine does not start: these are what the card would do if it did.' : null,
  ].filter(Boolean);
  const cal = rf.decode_calibrated;
  return h('div', { id: 'roofline' },
    caveats.length ? h('p', { class: 'warn', id: 'roofline-caveat' }, caveats.join(' ')) : null,
    h('dl', { class: 'figures' },
      step('decode', `Decode step, batch ${commas(rf.decode.batch)} at ${commas(rf.decode.context_tokens)} tokens`, rf.decode),
      cal?.available ? [h('dt', {}, 'Decode step, calibrated'),
        h('dd', { id: 'decode-calibrated', 'data-value': cal.tokens_per_s, 'data-time': cal.time_s },
          `${seconds(cal.time_s)}, ${rate(cal.tokens_per_s)} tokens/s, the KV read at ${(cal.kv_bandwidth_efficiency * 100).toFixed(0)}% of the datasheet bandwidth `,
          h('span', { class: 'muted' }, `as ${cal.measurement.kernel} reached on ${cal.measurement.measured_on} (${cal.measurement.kv_dtype}, batch ${commas(cal.measurement.batch)} × ${commas(cal.measurement.context_tokens)} tokens; cited, not measured by kvscope: ${cal.measurement.source})`))] : null,
      capped ? step('decode-capped', `Decode at the KV cap (batch ${commas(capped.batch)})`, capped) : null,
      step('prefill', `Prefill of ${commas(rf.prefill.prompt_tokens)} tokens`, rf.prefill)),
    h('p', { class: 'muted' }, `${rf.note}: ${(rf.bandwidth_bytes_per_s / 1e12).toFixed(2)} TB/s, ${(rf.peak_flops / 1e12).toFixed(0)} TFLOP/s ${rf.peak_dtype}.`));
}

/** Assumptions the importer made and notes on how each engine figure was obtained. */
export function notesView(r) {
  const items = [...r.assumptions, ...(r.notes ?? [])];
  return h('ul', { class: 'notes', id: 'notes' }, items.map((t) => h('li', {}, t)));
}

/** One number: how many sequences of the context fit in the KV pool (the widget's concurrency view). */
export function concurrencyView(r, fmt) {
  const fits = Math.floor(sequencesThatFit(r));
  return h('div', { class: 'concurrency' },
    h('p', { class: 'big', 'data-value': fits }, `${commas(fits)} sequence${fits === 1 ? '' : 's'} of ${commas(r.max_model_len)} tokens`),
    h('p', { class: 'muted' },
      `${r.model.name}, KV ${r.kv_dtype.name}: ${fmt.bytes(r.kv_bytes_per_sequence)} per sequence; ` +
      `the ${r.gpu.name} keeps ${fmt.bytes(r.kv_pool_bytes)} for KV after ${fmt.bytes(r.weights_bytes)} of weights ` +
      `(${ratio(sequencesThatFit(r))} sequences).`));
}

/**
 * KV per sequence and sequences that fit at several contexts (the articles' context table).
 * @param {any[]} reports one plan per context
 */
export function contextTableView(reports, fmt) {
  return h('table', { class: 'contexts' },
    h('caption', {}, `${reports[0].model.name}, KV ${reports[0].kv_dtype.name}, on ${reports[0].gpu.name}`),
    h('thead', {}, h('tr', {}, ['context', 'KV per sequence', 'sequences that fit'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, reports.map((r) => h('tr', {},
      h('th', { scope: 'row' }, commas(r.max_model_len)),
      h('td', { 'data-value': r.kv_bytes_per_sequence }, fmt.bytes(r.kv_bytes_per_sequence)),
      h('td', { 'data-value': sequencesThatFit(r) }, commas(Math.floor(sequencesThatFit(r))))))));
}
