// The page's number formatting: the hand-written fixed() prints what Intl.NumberFormat('en-US')
// prints (the page stopped creating Intl formatters at start-up: web/js/format.js says why).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commas, fixed } from '../../web/js/format.js';

const intl = (x, min, max) =>
  new Intl.NumberFormat('en-US', { minimumFractionDigits: min, maximumFractionDigits: max }).format(x);

test('fixed() prints what Intl.NumberFormat en-US prints', () => {
  const values = [0, 1, -1, 0.5, 1.005, 2.675, 999.995, 1234.5, -1234.5, 0.0004999, 131072,
    2 ** 53, 2 ** 30 / 3, 1e20 + 1, 9.999e20, 12345678.9, -0.004, 5e-7, 1e21, 1e300, NaN, Infinity, -Infinity];
  // Random magnitudes from 1e-6 to 1e18, both signs, and ties at every precision (x.5 / 10^d).
  let seed = 42;
  const random = () => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31; };
  for (let i = 0; i < 3000; i++) values.push((random() < 0.5 ? -1 : 1) * 10 ** (random() * 24 - 6));
  for (let d = 0; d <= 4; d++) for (let k = 0; k < 200; k++) values.push((k + 0.5) / 10 ** d);
  const precisions = [[0, 0], [0, 1], [0, 2], [0, 3], [1, 1], [2, 2], [0, 4], [2, 4]];
  for (const x of values) {
    for (const [min, max] of precisions) assert.equal(fixed(x, min, max), intl(x, min, max), `fixed(${x}, ${min}, ${max})`);
  }
});

test('commas() groups integers exactly and shows a dash for no value', () => {
  assert.equal(commas(131072), '131,072');
  assert.equal(commas(2 ** 53), '9,007,199,254,740,992');
  assert.equal(commas(999.5), '1,000');
  assert.equal(commas(null), '–');
  assert.equal(commas(NaN), '–');
});
