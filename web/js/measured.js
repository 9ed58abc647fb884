// Measured decode attention (kvbench's kvscope.measured/1 records in data/measured/), loaded once
// after the first answer, and matched to the GPU the user picked: a record of another device
// says nothing about this one.

let loading = null;

/** Every record the site publishes; [] when there are none or the folder is missing. */
export function loadMeasured() {
  if (!loading) {
    const base = new URL('../data/measured/', import.meta.url);
    loading = fetch(new URL('index.json', base))
      .then((r) => (r.ok ? r.json() : { files: [] }))
      .then((index) => Promise.all((index.files ?? []).map((f) =>
        fetch(new URL(f, base)).then((r) => (r.ok ? r.json() : null)).catch(() => null))))
      .then((records) => records.filter((r) => r && r.schema === 'kvscope.measured/1'))
      .catch(() => []);
  }
  return loading;
}

/** A record's device in a few words. */
export function deviceLabel(r) {
  return r.device.kind === 'gpu' ? r.device.name : `CPU: ${r.device.model} (${r.device.threads} threads)`;
}

/** The records measured on the catalogue GPU `gpuId` ('custom' matches none). */
export function recordsFor(records, gpuId) {
  return records.filter((r) => r.device.kind === 'gpu' && r.device.catalogue_id === gpuId);
}

/** Median measured bandwidth efficiency of records (the "calibration" factor), or null. */
export function efficiencyOf(records) {
  if (!records.length) return null;
  const e = records.map((r) => r.bandwidth_efficiency).sort((a, b) => a - b);
  return e[Math.floor(e.length / 2)];
}
