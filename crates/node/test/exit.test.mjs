// The tools when the process exits, or the tools are closed, while a
// call runs: a harness may call process.exit at any time. Each case runs
// in a Node process of its own, started here, as process.exit ends it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const pkg = path.join(import.meta.dirname, '..');

/** SCRIPT (an ES module) in a Node process of its own: its status, signal and output. */
function node(script) {
  // A process held up waits for good: the bound is generous, the kill sure.
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: pkg,
    timeout: 60000,
    killSignal: 'SIGKILL',
    encoding: 'utf8',
  });
}

/** Whether process PID is still there (and not a zombie). */
function alive(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Waits (bounded, polling) until none of PIDS is left; the ones left, if any. */
async function ended(pids) {
  const deadline = Date.now() + 30000;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return pids.filter(alive);
}

/** The process ids a command wrote into FILE, one a line. */
const pidsIn = (file) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);

// The script's prelude: the tools over ROOT, and a wait for a file the
// command makes once it runs (bounded: the test's own bound kills it).
const prelude = (root) => `
  import fs from 'node:fs';
  import { bashTool, grepTool, readTool } from 'capout/ai-sdk';
  const root = ${JSON.stringify(root)};
  const bash = bashTool({ root });
  const grep = grepTool({ root });
  const read = readTool({ root });
  const options = (id) => ({ toolCallId: id, messages: [] });
  const until = async (file) => {
    while (!fs.existsSync(root + '/' + file)) await new Promise((r) => setTimeout(r, 20));
  };
`;

// The command of a long call: the shell and a child of it in the
// background (its group), each writing its id, then a wait for good.
const long = (name) => `sleep 1000 & echo $! >> ${name}; echo $$ >> ${name}; touch ${name}.started; wait`;

function scratch() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'capout-node-exit-'));
}

test('bash: process.exit while a call runs exits cleanly and ends the call', async () => {
  const root = scratch();
  const r = node(`${prelude(root)}
    bash.execute({ command: ${JSON.stringify(long('a'))} }, options('1'));
    await until('a.started');
    process.exit(3);
  `);
  const left = await ended(pidsIn(path.join(root, 'a')));
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(r.signal, null, `the exit was held up: ${r.stdout}${r.stderr}`);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, '');
  assert.equal(r.status, 3);
  assert.deepEqual(left, []);
});

test('bash: process.exit while two calls run on one tools object ends both', async () => {
  const root = scratch();
  const r = node(`${prelude(root)}
    bash.execute({ command: ${JSON.stringify(long('a'))} }, options('1'));
    bash.execute({ command: ${JSON.stringify(long('b'))} }, options('2'));
    await until('a.started');
    await until('b.started');
    process.exit(0);
  `);
  const left = await ended([...pidsIn(path.join(root, 'a')), ...pidsIn(path.join(root, 'b'))]);
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(r.signal, null, `the exit was held up: ${r.stdout}${r.stderr}`);
  assert.equal(r.stderr, '');
  assert.equal(r.status, 0);
  assert.deepEqual(left, []);
});

test('read and grep: calls made while a bash call runs answer, then process.exit ends it', async () => {
  const root = scratch();
  fs.writeFileSync(path.join(root, 'f.txt'), 'one\ntwo\n');
  const r = node(`${prelude(root)}
    bash.execute({ command: ${JSON.stringify(long('a'))} }, options('1'));
    await until('a.started');
    process.stdout.write(await read.execute({ path: 'f.txt' }, options('2')) + '|');
    process.stdout.write(await grep.execute({ pattern: 'two' }, options('3')) + '|');
    process.exit(0);
  `);
  const left = await ended(pidsIn(path.join(root, 'a')));
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(r.signal, null, `the exit was held up: ${r.stdout}${r.stderr}`);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, '     1\tone\n     2\ttwo\n|f.txt:2:two\n|');
  assert.equal(r.status, 0);
  assert.deepEqual(left, []);
});

test('Tools.close while a grep call runs: no exception, and the call answers', () => {
  const root = scratch();
  for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(root, `f${i}.txt`), 'hit\n'.repeat(100));
  const r = node(`
    import { Tools } from 'capout';
    const tools = new Tools(${JSON.stringify(root)});
    const call = tools.grep({ pattern: 'hit', output_mode: 'count', limit: 1 });
    tools.close();
    const text = await call;
    process.stdout.write(text.split('\\n')[0].replace(/f[0-9]+/, 'f') + '\\n');
    process.stdout.write(String(fs.existsSync(tools.savedDir)) + '\\n');
    import fs from 'node:fs';
  `);
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(r.signal, null, `held up: ${r.stdout}${r.stderr}`);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, 'f.txt:100\nfalse\n');
  assert.equal(r.status, 0);
});

test('Tools.close while a bash call runs: the call ends, its group too, and the promise settles', async () => {
  const root = scratch();
  const r = node(`
    import fs from 'node:fs';
    import { Tools, bashStopper } from 'capout';
    const root = ${JSON.stringify(root)};
    const tools = new Tools(root);
    const call = tools.bash(${JSON.stringify(long('a'))}, undefined, bashStopper());
    while (!fs.existsSync(root + '/a.started')) await new Promise((r) => setTimeout(r, 20));
    tools.close();
    const text = await call;
    process.stdout.write(text);
  `);
  const left = await ended(pidsIn(path.join(root, 'a')));
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(r.signal, null, `held up: ${r.stdout}${r.stderr}`);
  assert.equal(r.stderr, '');
  assert.equal(r.status, 0);
  assert.deepEqual(left, []);
  // Its shell, ended by the SIGTERM that comes first (a default action
  // kills at once), as an aborted call's.
  assert.equal(r.stdout, '(no output)\n(exit status 143, killed by SIGTERM)\n');
});

test('bash: process.exit ends a process of the call that dropped its mark, by its group', async () => {
  const root = scratch();
  // The mark is how leftovers are found; the group is how the call's own
  // processes are, and env -u takes the mark away.
  const command = 'env -u CAPOUT_MCP_CALL sleep 1000 & echo $! >> a; echo $$ >> a; touch a.started; wait';
  const r = node(`${prelude(root)}
    bash.execute({ command: ${JSON.stringify(command)} }, options('1'));
    await until('a.started');
    process.exit(0);
  `);
  const left = await ended(pidsIn(path.join(root, 'a')));
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(r.signal, null, `the exit was held up: ${r.stdout}${r.stderr}`);
  assert.equal(r.stderr, '');
  assert.equal(r.status, 0);
  assert.deepEqual(left, []);
});

// The package's own Tools, without the AI SDK: the exit hook is the
// package's, not capout/ai-sdk's.
const plain = (root) => `
  import fs from 'node:fs';
  import { Tools, bashStopper } from 'capout';
  const root = ${JSON.stringify(root)};
  const tools = new Tools(root);
  const until = async (file) => {
    while (!fs.existsSync(root + '/' + file)) await new Promise((r) => setTimeout(r, 20));
  };
`;

test('Tools: process.exit while a bash call runs exits, and ends the call and its folder', async () => {
  const root = scratch();
  const r = node(`${plain(root)}
    tools.bash(${JSON.stringify(long('a'))}, undefined, bashStopper());
    await until('a.started');
    process.stdout.write(tools.savedDir);
    process.exit(3);
  `);
  const left = await ended(pidsIn(path.join(root, 'a')));
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(r.signal, null, `the exit was held up: ${r.stdout}${r.stderr}`);
  assert.equal(r.stderr, '');
  assert.equal(r.status, 3);
  assert.deepEqual(left, []);
  assert.equal(fs.existsSync(r.stdout), false, `${r.stdout} is left`);
});

test('Tools: a setsid or nohup job of bash ends with the call, the process still running', () => {
  const root = scratch();
  // The process waits (bounded by the test's) until the jobs are gone.
  const r = node(`${plain(root)}
    const alive = (pid) => {
      try {
        const stat = fs.readFileSync('/proc/' + pid + '/stat', 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
      } catch {
        return false;
      }
    };
    for (const job of ['setsid sleep 1000', 'nohup sleep 1000']) {
      const pid = Number(await tools.bash(job + ' >/dev/null 2>&1 & echo $!', undefined, bashStopper()));
      while (alive(pid)) await new Promise((r) => setTimeout(r, 20));
      process.stdout.write(job + ' ended\\n');
    }
  `);
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(r.signal, null, `a job was left: ${r.stdout}${r.stderr}`);
  assert.equal(r.stderr, '');
  assert.equal(r.status, 0);
  assert.equal(r.stdout, 'setsid sleep 1000 ended\nnohup sleep 1000 ended\n');
});

test('Tools: a job left by a call that ended, deaf to SIGTERM, ends at process.exit', async () => {
  const root = scratch();
  const command = `sh -c "trap '' TERM HUP; echo \\$\\$ > a; exec sleep 1000" >/dev/null 2>&1 & while [ ! -s a ]; do sleep 0.01; done`;
  const r = node(`${plain(root)}
    await tools.bash(${JSON.stringify(command)}, undefined, bashStopper());
    process.exit(0);
  `);
  const left = await ended(pidsIn(path.join(root, 'a')));
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(r.signal, null, `the exit was held up: ${r.stdout}${r.stderr}`);
  assert.equal(r.stderr, '');
  assert.equal(r.status, 0);
  assert.deepEqual(left, []);
});

test('Tools.close, then bash: the tools still work, with a folder of their own again', () => {
  const root = scratch();
  const r = node(`${plain(root)}
    const first = tools.savedDir;
    tools.close();
    const text = await tools.bash('seq 100000', undefined, bashStopper());
    const again = tools.savedDir;
    process.stdout.write([fs.existsSync(first), first !== again, fs.existsSync(again), text.includes('full output: ' + again + '/')].join(' '));
    tools.close();
    process.stdout.write(' ' + fs.existsSync(again));
  `);
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(r.stderr, '');
  assert.equal(r.status, 0);
  assert.equal(r.stdout, 'false true true true false');
});

test('Tools: a panic in a tool call rejects its promise, and the process goes on', () => {
  const root = scratch();
  // A debug build's grep panics when CAPOUT_TEST_PANIC says so.
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `${plain(root)}
      const error = await tools.grep({ pattern: 'x' }).catch((e) => e);
      process.stdout.write(error.message + '|');
      process.stdout.write(await tools.bash('echo still here', undefined, bashStopper()));
    `,
    ],
    { cwd: pkg, timeout: 60000, killSignal: 'SIGKILL', encoding: 'utf8', env: { ...process.env, CAPOUT_TEST_PANIC: 'grep' } },
  );
  fs.rmSync(root, { recursive: true, force: true });
  assert.equal(r.signal, null, `the process died: ${r.stdout}${r.stderr}`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'the tool failed: a bug in capout: CAPOUT_TEST_PANIC asked grep to panic|still here\n');
});
