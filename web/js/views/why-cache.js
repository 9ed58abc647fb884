// "Why a cache": K/V projections per layer with and without a cache (article 1's 2,336 vs 68).
import { h } from '../dom.js';
import { commas } from '../format.js';

/** @param {import('../kvscope').EstimateReport} r from `estimate --prompt-tokens P --output-tokens G` */
export function whyCacheView(r) {
  const without = r.kv_projections_without_cache;
  const withCache = r.kv_projections_with_cache;
  const p = r.input.prompt_tokens;
  const g = r.input.output_tokens;
  return h('div', { id: 'why-cache' },
    h('p', {}, `A ${commas(p)}-token prompt and ${commas(g)} generated tokens, per layer:`),
    h('dl', { class: 'figures' },
      h('dt', {}, 'Without a cache (recompute K and V of the whole prefix each step)'),
      h('dd', { id: 'projections-without', 'data-value': without }, `${commas(without)} K/V projections`),
      h('dt', {}, 'With a cache (each token projected once)'),
      h('dd', { id: 'projections-with', 'data-value': withCache }, `${commas(withCache)} K/V projections`)),
    h('p', {}, `${(without / withCache).toFixed(1)}× fewer projections. The price is memory: every kept token costs ${commas(r.kv_bytes_per_token)} bytes, and each decode step still reads the whole cache.`));
}
