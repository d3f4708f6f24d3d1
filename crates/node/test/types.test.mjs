// The package's types resolve for ES module and CommonJS consumers, and
// reject a wrong use (tsc --noEmit).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

const dir = path.join(import.meta.dirname, 'types');
const tsc = path.join(import.meta.dirname, '..', 'node_modules', '.bin', 'tsc');
const run = (...args) => spawnSync(tsc, args, { cwd: dir, encoding: 'utf8' });

test('the types check for an ES module and a CommonJS consumer', () => {
  const r = run('-p', 'tsconfig.json');
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('a wrong use does not type-check', () => {
  const r = run('--ignoreConfig', '--noEmit', '--module', 'nodenext', '--strict', '--skipLibCheck', '--types', 'node', 'wrong.mts');
  assert.notEqual(r.status, 0);
  assert.match(r.stdout, /wrong\.mts\(4,14\): error TS2322/);
  assert.match(r.stdout, /wrong\.mts\(5,31\): error TS2322/);
  assert.match(r.stdout, /wrong\.mts\(6,31\): error TS2353: .*'nope'/);
});
