// Bytes per token with the formula and the real numbers, per layer group, per sequence and batch.
import { h } from '../dom.js';
import { commas } from '../format.js';

/** @param {import('../kvscope').EstimateReport} r @param {ReturnType<import('../format.js').makeFormat>} fmt */
export function bytesPerTokenView(r, fmt) {
  const groups = r.layer_groups.filter((g) => g.kv_bytes_per_token > 0);
  const ctx = r.input.context_tokens;
  const compressed = r.compressed_kv_bytes_per_token > 0;  // DeepSeek-V4: windows, then entries
  return h('div', {},
    h('p', { class: 'big', id: 'kv-bytes-per-token', 'data-value': r.kv_bytes_per_token },
      `${commas(r.kv_bytes_per_token)} bytes per token (${fmt.size(r.kv_bytes_per_token)})`,
      compressed ? ' while the windows fill' : null),
    compressed ? h('p', { id: 'kv-compressed-per-token', 'data-value': r.compressed_kv_bytes_per_token },
      `then ${r.compressed_kv_bytes_per_token.toFixed(2)} bytes per token on average in compressed entries, one per compress ratio's tokens`) : null,
    h('ul', { class: 'formulas' },
      groups.map((g) => h('li', {}, h('code', {}, g.kv_bytes_per_token_formula),
        ` — ${g.layer_count} ${g.kind} layer${g.layer_count === 1 ? '' : 's'}`)),
      r.kv_dtype.scale_bits_per_row > 0 ? h('li', {}, `${r.kv_dtype.name}: ${r.kv_dtype.description}`) : null),
    h('p', {}, compressed
      ? 'In words: each layer keeps one latent (key and value at once) for each token of its window, and one compressed latent, with an indexer key where it selects, for every compress ratio tokens of the sequence.'
      : 'In words: K and V × layers × KV heads × head dim × bytes per value.'),
    h('dl', { class: 'figures' },
      h('dt', {}, `One sequence at ${commas(ctx)} tokens`),
      h('dd', { id: 'kv-per-sequence', 'data-value': r.kv_bytes_per_sequence }, fmt.bytes(r.kv_bytes_per_sequence), h('span', { class: 'exact' }, ` ${commas(r.kv_bytes_per_sequence)} bytes`)),
      r.input.batch > 1 || r.shared_prefix_bytes > 0 ? [
        h('dt', {}, `${commas(r.input.batch)} sequences`),
        h('dd', { id: 'kv-total', 'data-value': r.kv_bytes_total }, fmt.bytes(r.kv_bytes_total), h('span', { class: 'exact' }, ` ${commas(r.kv_bytes_total)} bytes`))] : null,
      r.recurrent_state_bytes_per_sequence > 0 ? [
        h('dt', {}, compressed ? 'Compressor state per sequence (fp32)' : 'Recurrent state per sequence'),
        h('dd', {}, fmt.size(r.recurrent_state_bytes_per_sequence), ' (constant in context)')] : null));
}

/** @param {import('../kvscope').EstimateReport} r @param {ReturnType<import('../format.js').makeFormat>} fmt */
export function layerGroupsView(r, fmt) {
  const head = ['kind', 'layers', 'KV heads', 'K / V dim', 'window', 'bytes / token', 'kept tokens', 'per sequence'];
  return h('table', { class: 'groups', id: 'layer-groups' },
    h('caption', {}, `${r.kv_layers} of ${r.model.layers} layers keep tokens`),
    h('thead', {}, h('tr', {}, head.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, r.layer_groups.map((g) => h('tr', {},
      h('th', { scope: 'row' }, g.kind),
      h('td', {}, commas(g.layer_count)),
      h('td', {}, g.kv_heads ? commas(g.kv_heads) : '–'),
      h('td', {}, g.k_head_dim ? `${g.k_head_dim} / ${g.v_head_dim}` : '–'),
      h('td', {}, g.window_tokens ? commas(g.window_tokens) : '–'),
      h('td', {}, commas(g.kv_bytes_per_token)),
      h('td', {}, commas(g.kept_tokens_per_sequence),
        g.compressed_entries_per_sequence ? ` + ${commas(g.compressed_entries_per_sequence)} compressed` : null),
      h('td', {}, fmt.bytes(g.kv_bytes_per_sequence + g.state_bytes_per_sequence))))));
}
