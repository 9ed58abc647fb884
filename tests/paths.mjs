// Where the node and browser tests find the staged site and the native CLI (the README's test
// command builds both; KVSCOPE_SITE / KVSCOPE_CLI override).
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const siteDir = process.env.KVSCOPE_SITE ?? path.join(repoRoot, 'build/wasm/site');
export const cliPath = process.env.KVSCOPE_CLI ?? path.join(repoRoot, 'build/native/native-bench/kvscope');
export const configsDir = path.join(repoRoot, 'tests/data/configs');
