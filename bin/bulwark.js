#!/usr/bin/env node
// Runs the CLI on Node 24 even where the system Node is older: the project ships Node 24 as a
// devDependency (the `node` package), and this shim re-executes with it when needed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
const entry = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
if (major >= 24) {
  const { runCli } = await import(entry);
  runCli(process.argv.slice(2));
} else {
  const bundled = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(bundled)) {
    console.error(`bulwark needs Node.js 24 or newer (found ${process.version}); run npm install first`);
    process.exit(1);
  }
  const result = spawnSync(bundled, [entry, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
