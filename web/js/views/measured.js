// Measured beside estimated: kvbench's records for the chosen GPU, with the estimate, the
// measurement and their ratio, and the calibrated decode step; else how to measure it.
import { h } from '../dom.js';
import { commas, seconds } from '../format.js';
import { deviceLabel } from '../measured.js';

/** The closed section's one line: how many records match the GPU, or that none do. */
export function measuredSummary(records, gpuName) {
  return records.length ? `${commas(records.length)} kvbench record${records.length === 1 ? '' : 's'} on ${gpuName}` : `not measured yet on ${gpuName}`;
}

/**
 * @param {any[]} records those of the GPU the user picked @param {string} gpuName
 * @param {number} elsewhere records of other devices the site publishes
 * @param {{efficiency: number|null, device: string, decode_s: number|null,
 *   cited: import('../kvscope').CalibratedDecode|null}} calibration
 */
export function measuredView(records, gpuName, elsewhere, calibration) {
  // The plan's decode step three ways: the datasheet roofline, calibrated by a cited measurement
  // of this GPU's class, and kvbench's own (the table below, when there is one).
  const cited = calibration.cited;
  const sides = calibration.decode_s ? h('p', { id: 'measured-sides' },
    `This plan's decode step: ${seconds(calibration.decode_s)} on the datasheet roofline; `,
    cited?.available ? `${seconds(cited.time_s)} calibrated by a published measurement (${cited.measurement.measured_on}, ${(cited.kv_bandwidth_efficiency * 100).toFixed(0)}% of the datasheet bandwidth; cited, not measured by kvscope); `
      : `no calibration (${cited?.reason ?? 'no roofline'}); `,
    records.length ? 'measured by kvbench: the table below.' : `not measured by kvbench on ${gpuName}.`) : null;
  if (!records.length) {
    return h('div', { id: 'measured' }, sides, h('p', { id: 'measured-none' },
      `Not measured yet on ${gpuName}: the figures above are estimates. `,
      `To measure, run native-bench/gpu-check.sh OUT_DIR on that GPU and add its kvscope.measured/1 records to web/data/measured/ (each carries its machine, date, command and commit).`,
      elsewhere ? ` The site publishes ${commas(elsewhere)} record${elsewhere === 1 ? '' : 's'} of other devices; they say nothing about this one.` : ''));
  }
  return h('div', { id: 'measured' }, sides,
    calibration.efficiency && calibration.decode_s ? h('p', { id: 'measured-calibrated' },
      h('strong', {}, 'Calibrated estimate: '),
      `decode step ${seconds(calibration.decode_s / calibration.efficiency)} = the roofline's ${seconds(calibration.decode_s)} ÷ the ${(calibration.efficiency * 100).toFixed(0)}% bandwidth efficiency measured on ${calibration.device}. Marked as calibrated: an estimate scaled by a measurement, not a measurement.`) : null,
    h('div', { class: 'scroll' }, h('table', { id: 'measured-table' },
      h('caption', {}, 'Decode attention measured by kvbench (one step over the KV cache), beside the core\'s estimate for the same bytes and the machine\'s measured read bandwidth (a streaming sum; "paged read": the same KV pages read with nothing computed, what the layout allows)'),
      h('thead', {}, h('tr', {}, ['device', 'scenario', 'measured', 'estimate', 'measured / estimate', 'of read bandwidth', 'provenance']
        .map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, records.map((r) => h('tr', { 'data-ratio': r.measured_over_estimate },
        h('td', {}, deviceLabel(r)),
        h('td', {}, `${r.problem.model}, ${r.problem.kv_dtype}, ${r.problem.batch} × ${r.problem.lengths} tokens, ${r.problem.layers} layer${r.problem.layers === 1 ? '' : 's'}, ${r.problem.page_size}-token pages`),
        h('td', {}, seconds(r.timing.median_s)),
        h('td', {}, seconds(r.estimate_s)),
        h('td', {}, `${r.measured_over_estimate.toFixed(2)}×`),
        h('td', {}, `${(r.bandwidth_efficiency * 100).toFixed(1)}% of ${(r.measured_bandwidth_bytes_per_s / 1e9).toFixed(1)} GB/s`,
          r.paged_read ? `; ${(r.paged_read.efficiency * 100).toFixed(1)}% of ${(r.paged_read.bytes_per_s / 1e9).toFixed(1)} GB/s paged read` : ''),
        h('td', { class: 'exact' }, `${r.meta.date}, commit ${r.meta.commit}: ${r.meta.command}`)))))));
}
