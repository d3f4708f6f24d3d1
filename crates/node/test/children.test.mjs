// The tools in a process that runs children of its own with
// child_process, as a harness does. Each case runs in a Node process of
// its own, started here: what libuv does with SIGCHLD is process-wide,
// and a child of this test file's (a server, say) would hide it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const pkg = path.join(import.meta.dirname, '..');

test('bash: a child of Node that exits while a call runs does not hold the call up', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'capout-node-children-'));
  // The child exits only once the call's command has started, and the
  // command ends only once Node has seen the child exit: libuv's last
  // child gone, it puts SIGCHLD back to its default while the call runs.
  const script = `
    import { spawn } from 'node:child_process';
    import { bashTool } from 'capout/ai-sdk';
    const bash = bashTool({ root: ${JSON.stringify(root)} });
    const child = spawn('sh', ['-c', 'while [ ! -e started ]; do sleep 0.02; done'], { cwd: ${JSON.stringify(root)} });
    child.on('exit', () => setImmediate(() => fs.writeFileSync(${JSON.stringify(path.join(root, 'released'))}, '')));
    import fs from 'node:fs';
    const command = 'touch started; while [ ! -e released ]; do sleep 0.02; done; echo ran';
    process.stdout.write(await bash.execute({ command }, { toolCallId: '1', messages: [] }));
    process.stdout.write(await bash.execute({ command: 'echo again' }, { toolCallId: '2', messages: [] }));
  `;
  // A call held up waits for good: the bound is generous, the kill sure.
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: pkg,
    timeout: 60000,
    killSignal: 'SIGKILL',
    encoding: 'utf8',
  });
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(r.signal, null, `the calls were held up: ${r.stdout}${r.stderr}`);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, 'ran\nagain\n');
  assert.equal(r.status, 0);
});
