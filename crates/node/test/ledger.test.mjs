// The ledger from the module's tools: a line for each call, never its
// output, and a read of a saved output counted as its page. In a Node
// process of its own, whose state folder is a scratch one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const pkg = path.join(import.meta.dirname, '..');

test('each call of the tools is a line of the ledger, and a read of a saved output its page', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'capout-node-ledger-'));
  const root = path.join(base, 'root');
  fs.mkdirSync(root);
  const state = path.join(base, 'state');
  const script = `
    import { Tools, bashStopper } from 'capout';
    const tools = new Tools(${JSON.stringify(root)});
    const text = await tools.bash('seq 100000 | sed s/^/zq/', undefined, bashStopper());
    const saved = /; full output: (\\S+)\\)\\n$/.exec(text)[1];
    await tools.read(saved, 500, 10);
    process.stdout.write(JSON.stringify({ saved, shown: [...text].length }));
  `;
  const env = { ...process.env, XDG_STATE_HOME: state };
  delete env.CAPOUT_LEDGER;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: pkg, env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const { saved, shown } = JSON.parse(r.stdout);
  const ledger = fs.readFileSync(path.join(state, 'capout', 'ledger.jsonl'), 'utf8');
  assert.ok(!ledger.includes('zq99999'), 'the output is never in the ledger');
  const [bash, page] = ledger.trim().split('\n').map((line) => JSON.parse(line));
  assert.deepEqual([bash.front, bash.tool, bash.command], ['node', 'bash', 'seq 100000 | sed s/^/zq/']);
  assert.deepEqual([bash.cut, bash.saved, bash.exit, bash.chars_in, bash.chars_shown], [true, saved, 0, 788895, shown]);
  assert.deepEqual([page.front, page.tool, page.page_of], ['node', 'read', saved]);
  assert.equal(fs.statSync(path.join(state, 'capout', 'ledger.jsonl')).mode & 0o777, 0o600);
});
