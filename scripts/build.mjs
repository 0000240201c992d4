#!/usr/bin/env node
/**
 * Compiles src/ into dist/. With --if-changed (what `npm start` and `npm run cli`
 * run first) it compiles only when the sources or the compiler settings changed
 * since the last build, so a command does not wait for the compiler every time.
 * What it compares is a fingerprint of every source file's path, size and
 * modification time, kept in dist/ beside the output it describes.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const FINGERPRINT = join('dist', '.build-fingerprint');
const INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** Every file under `directory`, as `path size mtime` lines, in a stable order. */
function describeTree(directory) {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .sort()
    .map(describeFile);
}

function describeFile(path) {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats ? `${path} ${stats.size} ${stats.mtimeMs}` : `${path} absent`;
}

function fingerprint() {
  return [...describeTree('src'), ...INPUTS.map(describeFile)].join('\n');
}

const ifChanged = process.argv.includes('--if-changed');
// Taken before compiling: a file saved during the build makes the next run build again.
const current = fingerprint();
if (
  ifChanged &&
  existsSync(join('dist', 'main.js')) &&
  existsSync(FINGERPRINT) &&
  readFileSync(FINGERPRINT, 'utf8') === current
) {
  process.exit(0);
}
if (ifChanged) process.stderr.write('Compiling src/ into dist/ (the sources changed)...\n');
const compiler = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [compiler, '-p', 'tsconfig.build.json'], {
  stdio: 'inherit',
});
if (result.status !== 0) process.exit(result.status ?? 1);
// Browser scripts and style sheets are files of their own beside the modules
// that serve them (src/**/assets/); the compiler leaves them, so they are copied.
for (const entry of readdirSync('src', { withFileTypes: true, recursive: true })) {
  if (!entry.isDirectory() || entry.name !== 'assets') continue;
  const from = join(entry.parentPath ?? entry.path, entry.name);
  cpSync(from, join('dist', from.slice('src/'.length)), { recursive: true });
}
writeFileSync(FINGERPRINT, current);
