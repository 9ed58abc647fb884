#!/usr/bin/env node
// `npx kvscope`: the kvscope command line (native-bench/cli) compiled to WebAssembly for node, so
// it takes the native binary's commands and flags and prints its text, JSON and exit codes.
'use strict';
const { readFileSync } = require('node:fs');
const path = require('node:path');
const createKvscopeCli = require('../cli/kvscope.cjs');

const wasmBinary = readFileSync(path.join(__dirname, '..', 'cli', 'kvscope.wasm'));
createKvscopeCli({ wasmBinary }).then((cli) => cli.callMain(process.argv.slice(2)));
