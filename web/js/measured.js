// Measured decode attention (kvbench's kvscope.measured/1 records in data/measured/), matched to
// the GPU the user picked: a record of another device says nothing about this one. The index
// names each record's device, so only the chosen GPU's records are fetched (none at first load
// while every published record is a CPU's).

let indexLoading = null;
const recordLoads = new Map();

/**
 * The published records: [{file, kind?, catalogue_id?}] from data/measured/index.json ([] when
 * there is none); an index without devices (files only) leaves them to be read from the records.
 */
function loadIndex() {
  if (!indexLoading) {
    indexLoading = fetch(new URL('../data/measured/index.json', import.meta.url))
      .then((r) => (r.ok ? r.json() : { files: [] }))
      .then((index) => index.records ?? (index.files ?? []).map((file) => ({ file })))
      .catch(() => []);
  }
  return indexLoading;
}

function loadRecord(file) {
  if (!recordLoads.has(file)) {
    recordLoads.set(file, fetch(new URL(`../data/measured/${file}`, import.meta.url))
      .then((r) => (r.ok ? r.json() : null)).catch(() => null)
      .then((r) => (r && r.schema === 'kvscope.measured/1' ? r : null)));
  }
  return recordLoads.get(file);
}

/**
 * The records measured on the catalogue GPU `gpuId` ('custom' matches none), fetched on first
 * ask, and how many the site publishes for other devices.
 * @returns {Promise<{records: any[], elsewhere: number}>}
 */
export async function measuredFor(gpuId) {
  const index = await loadIndex();
  const maybe = index.filter((e) => e.kind === undefined || (e.kind === 'gpu' && e.catalogue_id === gpuId));
  const records = recordsFor((await Promise.all(maybe.map((e) => loadRecord(e.file)))).filter(Boolean), gpuId);
  return { records, elsewhere: index.length - records.length };
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
