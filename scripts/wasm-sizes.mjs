#!/usr/bin/env node
// Where the bytes of a .wasm are: its sections, and the code by function and by origin (the
// core, nlohmann/json, the C++ library, Embind), from a build linked with --profiling-funcs:
//   NODE_PATH=/usr/share/nodejs emcmake cmake -S . -B build/wasm-prof -DCMAKE_BUILD_TYPE=Release \
//     -DCMAKE_EXE_LINKER_FLAGS=--profiling-funcs && cmake --build build/wasm-prof --target kvscope_module
//   (or kvscope_full_module, the module with the solver and the log reader)
//   node scripts/wasm-sizes.mjs build/wasm-prof/wasm/kvscope_module.wasm [TOP]
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const [file, topArg] = process.argv.slice(2);
if (!file) { console.error('usage: node scripts/wasm-sizes.mjs FILE.wasm [TOP]'); process.exit(2); }
const bytes = readFileSync(file);
let at = 8;  // magic and version
const uleb = () => { let v = 0, shift = 0, b; do { b = bytes[at++]; v += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80); return v; };
const name = () => { const n = uleb(); const s = bytes.toString('utf8', at, at + n); at += n; return s; };

const SECTIONS = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'datacount', 'tag'];
const sections = [];
let imported = 0, bodies = [], names = new Map();
while (at < bytes.length) {
  const id = bytes[at++];
  const size = uleb();
  const start = at;
  let label = SECTIONS[id] ?? `section ${id}`;
  if (id === 0) label = `custom "${name()}"`;
  if (id === 2) {  // imported functions take the first indices
    for (let n = uleb(); n > 0; n--) { name(); name(); const kind = bytes[at++]; if (kind === 0) { uleb(); imported++; } else if (kind === 1) { at++; const f = uleb(); uleb(); if (f & 1) uleb(); } else if (kind === 2) { const f = uleb(); uleb(); if (f & 1) uleb(); } else if (kind === 3) { at += 2; } else { at++; uleb(); } }
  }
  if (id === 10) for (let n = uleb(); n > 0; n--) { const s = uleb(); bodies.push({ start: at, size: s }); at += s; }
  if (label === 'custom "name"') {
    while (at < start + size) {
      const sub = bytes[at++]; const len = uleb(); const end = at + len;
      if (sub === 1) for (let n = uleb(); n > 0; n--) { const index = uleb(); names.set(index, name()); }
      at = end;
    }
  }
  sections.push({ label, size, gzip: gzipSync(bytes.subarray(start, start + size), { level: 9 }).length });
  at = start + size;
}

const origin = (n) => /nlohmann/.test(n) ? 'nlohmann/json' : /^kvscope::|kvscope::/.test(n) ? 'kvscope core'
  : /emscripten|embind|_embind|EmscriptenBindingInitializer/.test(n) ? 'Embind'
  : /^std::|^__|^operator|libc|malloc|free|printf|^dlmalloc|^mem|^str/.test(n) ? 'C/C++ library' : 'other';
const functions = bodies.map((b, i) => {
  const n = names.get(imported + i) ?? `function ${imported + i}`;
  return { name: n, size: b.size, gzip: 0, origin: origin(n), body: bytes.subarray(b.start, b.start + b.size) };
});
const byOrigin = {};
for (const f of functions) {
  const o = (byOrigin[f.origin] ??= { functions: 0, bytes: 0, parts: [] });
  o.functions++; o.bytes += f.size; o.parts.push(f.body);
}
for (const o of Object.values(byOrigin)) { o.gzip = gzipSync(Buffer.concat(o.parts), { level: 9 }).length; delete o.parts; }

const kb = (n) => `${(n / 1000).toFixed(1)} kB`;
console.log(`${file}: ${kb(bytes.length)}, ${kb(gzipSync(bytes, { level: 9 }).length)} gzipped`);
console.log('\nsections (raw, gzipped alone):');
for (const s of sections) console.log(`  ${s.label.padEnd(28)} ${kb(s.size).padStart(10)} ${kb(s.gzip).padStart(10)}`);
console.log('\ncode by origin (raw, gzipped alone):');
for (const [o, v] of Object.entries(byOrigin).sort((a, b) => b[1].bytes - a[1].bytes)) {
  console.log(`  ${o.padEnd(16)} ${String(v.functions).padStart(5)} functions ${kb(v.bytes).padStart(10)} ${kb(v.gzip).padStart(10)}`);
}
const top = Number(topArg ?? 40);
console.log(`\nlargest ${top} functions:`);
for (const f of functions.sort((a, b) => b.size - a.size).slice(0, top)) console.log(`  ${kb(f.size).padStart(9)}  ${f.name.slice(0, 150)}`);
