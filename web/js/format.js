// Number formatting for every view: bytes always carry their unit (GB = 10^9, GiB = 2^30), and
// the user's GB/GiB choice applies everywhere.

const UNITS = {
  GB: { base: 1e9, small: [['TB', 1e12], ['GB', 1e9], ['MB', 1e6], ['KB', 1e3]] },
  GiB: { base: 2 ** 30, small: [['TiB', 2 ** 40], ['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]] },
};

/**
 * x with between min and max decimals and en-US grouping ("1,234.5"), as Intl.NumberFormat('en-US')
 * prints it: rounded half away from zero from x's shortest decimal form (1.005 -> "1.01"). Written
 * out because a page's first Intl formatter loads the locale data: 40-90 ms of a 2-core machine's
 * main thread, in the way of the first answer.
 * @param {number} x @param {number} min @param {number} max
 */
export function fixed(x, min, max) {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : `${x < 0 ? '-' : ''}∞`;
  const [mantissa, exponent] = Math.abs(x).toExponential().split('e');  // shortest digits
  let digits = mantissa.replace('.', '');
  let point = Number(exponent) + 1;  // how many of the digits come before the decimal point
  if (point < 1) { digits = '0'.repeat(1 - point) + digits; point = 1; }
  const keep = point + max;
  let kept = digits.slice(0, keep).padEnd(keep, '0');
  if (digits[keep] >= '5') {
    kept = (BigInt(kept) + 1n).toString().padStart(keep, '0');
    if (kept.length > keep) point++;  // 999.995 -> 1000.00
  }
  let end = kept.length;
  while (end - point > min && kept[end - 1] === '0') end--;
  const whole = kept.slice(0, point).replace(/\B(?=(\d{3})+$)/g, ',');
  return `${x < 0 ? '-' : ''}${whole}${end > point ? `.${kept.slice(point, end)}` : ''}`;
}

/** 131072 -> "131,072"; exact for integers up to 2^53. */
export function commas(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return fixed(Math.round(n), 0, 0);
}

/** A formatter bound to the user's unit family ("GB" or "GiB"). */
export function makeFormat(units) {
  const family = UNITS[units] || UNITS.GiB;
  return {
    units: units === 'GB' ? 'GB' : 'GiB',
    base: family.base,
    /** Bytes in the main unit: "16.00 GiB". */
    bytes(n) {
      if (n === null || n === undefined || !Number.isFinite(n)) return '–';
      return `${fixed(n / family.base, 2, 2)} ${this.units}`;
    },
    /** Bytes in the largest unit that keeps the number >= 1: "128 KiB", "2.15 GB". */
    size(n) {
      if (n === null || n === undefined || !Number.isFinite(n)) return '–';
      for (const [name, factor] of family.small) {
        if (n >= factor) return `${trim(n / factor)} ${name}`;
      }
      return `${commas(n)} bytes`;
    },
    /** The chart axis value of a byte count. */
    scale(n) { return n / family.base; },
  };
}

function trim(x) {
  return fixed(x, 0, x >= 100 ? 1 : x >= 10 ? 2 : 3);
}

/** @type {Array<[string, number]>} */
const BINARY = [['M', 2 ** 20], ['K', 2 ** 10]];

/** A token count for an axis in binary K and M: 1024 -> "1K", 131072 -> "128K", 1536 -> "1.5K". */
export function tokens(n) {
  if (!Number.isFinite(n)) return '–';
  for (const [suffix, unit] of BINARY) {
    if (n >= unit) return `${fixed(n / unit, 0, n / unit >= 100 ? 0 : 1)}${suffix}`;
  }
  return commas(n);
}

/** Seconds as ms or s: "32.2 ms". */
export function seconds(s) {
  if (!Number.isFinite(s)) return '–';
  if (s < 1e-3) return `${(s * 1e6).toFixed(1)} µs`;
  if (s < 1) return `${(s * 1e3).toFixed(1)} ms`;
  return `${s.toFixed(2)} s`;
}

/** A rate such as tokens/s with thousands separators and sensible precision. */
export function rate(x) {
  if (!Number.isFinite(x)) return '–';
  return x >= 100 ? commas(x) : fixed(x, 0, 1);
}

/** A ratio such as 0.24 or 7.07 sequences. */
export function ratio(x) {
  if (!Number.isFinite(x)) return '–';
  return fixed(x, x < 10 ? 2 : 0, 2);
}

/** One RFC 4180 CSV cell: quoted when it holds a quote, comma or newline; '' for none. */
export const csvCell = (v) => (/[",\n]/.test(String(v ?? '')) ? `"${String(v).replace(/"/g, '""')}"` : String(v ?? ''));

/**
 * A plan's capacity: sequences of the context the pools hold (sequences_that_fit, the one figure
 * the verdict, charts, solver and exports use); llama.cpp, which sizes its buffers to the
 * request, holds its slots (max_concurrency).
 * @param {{sequences_that_fit: number | null, max_concurrency: number}} r
 */
export const sequencesThatFit = (r) => r.sequences_that_fit ?? r.max_concurrency;
