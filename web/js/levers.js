// What if: each lever applied to the current scenario on its own, and the chart of them.
import { KvscopeError } from './kvscope-client.js';
import { show } from './dom.js';
import { planRequest } from './state.js';
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
    page.state.engine === 'vllm' ? { label: 'gpu_memory_utilization 0.95', short: 'utilization 0.95', detail: `from ${page.state.gpu_memory_utilization}`, change: { gpu_memory_utilization: 0.95 } } : null,
    page.state.engine === 'sglang' ? { label: 'mem_fraction_static +0.05', short: 'mem fraction +0.05', detail: '', change: { mem_fraction_static: Math.min(1, (page.state.mem_fraction_static || 0.88) + 0.05) } } : null,
    page.state.engine === 'tensorrt-llm' ? { label: 'free_gpu_memory_fraction 0.95', short: 'free fraction 0.95', detail: '', change: { free_gpu_memory_fraction: 0.95 } } : null,
    { label: 'tensor parallel × 2', short: 'TP × 2', detail: `${page.state.tp} → ${page.state.tp * 2} GPUs per replica`, change: { tp: page.state.tp * 2, gpus: Math.max(page.state.gpus, page.state.tp * 2 * page.state.pp) } },
  ];
  return list.filter(Boolean);
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
