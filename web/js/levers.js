// What if: each lever applied to the current scenario on its own, and the chart of them.
import { KvscopeError } from './kvscope-client.js';
import { show } from './dom.js';
import { KNOBS, engineInfo, planRequest } from './state.js';
import { drawWhatIf } from './charts.js';
import { whatIfView } from './views/what-if.js';
import { $, page } from './page.js';

function levers() {
  const g = page.last.plan.layer_groups.find((x) => x.kv_heads > 0);
  const list = [
    { label: 'fp8 KV cache', short: 'fp8 KV', detail: '--kv-dtype fp8', change: { kv_dtype: 'fp8' } },
    g && g.kv_heads > 1 ? { label: 'half the KV heads', short: '½ KV heads', detail: `${g.kv_heads} → ${Math.ceil(g.kv_heads / 2)}`, set: [`num_key_value_heads=${Math.ceil(g.kv_heads / 2)}`] } : null,
    { label: 'a 4,096-token sliding window', short: '4K window', detail: 'every layer', set: ['sliding_window=4096', 'use_sliding_window=true', 'max_window_layers=0'] },
    { label: '4-bit weights', short: '4-bit weights', detail: '--weight-dtype int4', change: { weight_dtype: 'int4' } },
    ...engineLevers(),
    { label: 'tensor parallel × 2', short: 'TP × 2', detail: `${page.state.tp} → ${page.state.tp * 2} GPUs per replica`, change: { tp: page.state.tp * 2, gpus: Math.max(page.state.gpus, page.state.tp * 2 * page.state.pp) } },
  ];
  return list.filter(Boolean);
}

// The engine's own levers, as the core's engine table lists them.
function engineLevers() {
  return (engineInfo(page.state.engine)?.levers ?? []).filter((l) => KNOBS[l.key]).map((l) => {
    const field = KNOBS[l.key].field;
    const value = l.step ? Math.min(1, (page.state[field] || l.from) + l.step) : l.value;
    return { label: l.label, short: l.short_label, detail: l.step ? '' : `from ${page.state[field]}`, change: { [field]: value } };
  });
}

export function runWhatIf() {
  page.whatIfOpen = true;
  const results = levers().map((lever) => {
    try {
      return { ...lever, report: page.kv.plan(planRequest({ ...page.state, ...(lever.change ?? {}) }, lever.set ?? [])) };
    } catch (e) {
      if (!(e instanceof KvscopeError)) throw e;
      return { ...lever, error: e.message };
    }
  });
  show($('what-if-panel'), whatIfView(results, page.last.plan));
  $('chart-what-if').hidden = false;
  drawWhatIf(results, page.last.plan);
}

/** Listens to the what-if button. */
export function wireWhatIf() {
  $('what-if-run').addEventListener('click', runWhatIf);
}
