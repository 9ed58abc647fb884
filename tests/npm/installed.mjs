// scripts/pack-npm.sh's tarball installed as a user installs it: into an empty folder, its
// dependencies from the registry (or npm's cache). Each test file installs its own copy.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../paths.mjs';

/** @returns {string} the folder the package is installed in (node_modules/kvscope, .bin/kvscope) */
export function installPackage() {
  const tarballs = readdirSync(path.join(repoRoot, 'build/npm')).filter((f) => /^kvscope-.*\.tgz$/.test(f));
  assert.equal(tarballs.length, 1, 'scripts/pack-npm.sh writes one build/npm/kvscope-<version>.tgz');
  const folder = mkdtempSync(path.join(tmpdir(), 'kvscope-npm-'));
  writeFileSync(path.join(folder, 'package.json'), '{"name": "user", "private": true, "type": "module"}');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(repoRoot, 'build/npm', tarballs[0])],
    { cwd: folder, stdio: 'pipe' });
  return folder;
}
