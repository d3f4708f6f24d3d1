// capout/ai-sdk driven by the AI SDK's own mock model through
// generateText: the model calls a tool, and what it receives in the next
// step is, to the byte, what capout's MCP server answers the same call.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { generateText, stepCountIs } from 'ai';
// The mock model of the SDK's version: V4 in ai 7, V3 in ai 6 (run.sh
// runs these tests with both).
import * as aiTest from 'ai/test';
const MockLanguageModelV4 = aiTest.MockLanguageModelV4 ?? aiTest.MockLanguageModelV3;
import { bashTool, grepTool, readTool } from 'capout/ai-sdk';
import { mcpServer } from './common.mjs';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'capout-node-tools-'));
const lines = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} of the file`).join('\n') + '\n';
fs.writeFileSync(path.join(root, 'big.txt'), lines);
fs.mkdirSync(path.join(root, 'src'));
for (const name of ['a.txt', 'b.txt']) {
  const text = Array.from({ length: 120 }, (_, i) => (i % 3 ? `hit ${i} in ${name}` : `miss ${i}`)).join('\n');
  fs.writeFileSync(path.join(root, 'src', name), text + '\n');
}

let server;
before(async () => {
  server = await mcpServer(root);
});
after(() => server.close());

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/**
 * One generateText run whose model calls TOOL with INPUT in its first
 * step and answers in the second: the tool result the second step's
 * prompt carries, and the run's result.
 */
async function throughModel(tools, toolName, input) {
  const prompts = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      if (prompts.length === 1) {
        return {
          content: [{ type: 'tool-call', toolCallId: 'call-1', toolName, input: JSON.stringify(input) }],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        };
      }
      return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
    },
  });
  const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3) });
  const next = prompts[1];
  const part = next?.find((m) => m.role === 'tool')?.content.find((p) => p.type === 'tool-result');
  return { output: part?.output, result, steps: prompts.length };
}

const mcpText = (result) => result.content.map((c) => c.text).join('');

test('bash: seq 100000 reaches the model as the last 5000 characters and the notice, the whole saved', async () => {
  const { output, steps } = await throughModel({ bash: bashTool({ root }) }, 'bash', { command: 'seq 100000' });
  assert.equal(steps, 2);
  assert.equal(output.type, 'text');
  const notice = /\n\.\.\. \(truncated, showing last 5000 chars; full output: (.+)\)\n$/;
  const [, saved] = output.value.match(notice);
  const seq = Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join('');
  assert.equal(fs.readFileSync(saved, 'utf8'), seq);
  const served = mcpText(await server.call('bash', { command: 'seq 100000' }));
  const [, servedSaved] = served.match(notice);
  assert.equal(output.value, served.replace(servedSaved, saved));
  assert.equal(output.value, `${seq.slice(-5000)}... (truncated, showing last 5000 chars; full output: ${saved})\n`);
  // The saved output is read's to page, as the notice says.
  const { output: paged } = await throughModel({ read: readTool({ root }) }, 'read', { path: saved, offset: 99998 });
  assert.equal(paged.value, ' 99999\t99999\n100000\t100000\n... (showing lines 99999-100000 of 100000, end of input)\n');
});

test('bash: the exit status, a timeout and no output, as the server says them', async () => {
  for (const input of [{ command: 'echo out; echo err >&2; exit 3' }, { command: 'sleep 5', timeout: 1 }, { command: 'true' }, { command: 'echo null', timeout: null }]) {
    const { output } = await throughModel({ bash: bashTool({ root }) }, 'bash', input);
    assert.equal(output.value, mcpText(await server.call('bash', input)), JSON.stringify(input));
  }
});

test('read: a 3,000-line file reaches the model as its first 500 lines, numbered, and the notice', async () => {
  for (const input of [{ path: 'big.txt' }, { path: 'big.txt', offset: 2990 }, { path: 'big.txt', offset: 10, limit: 3 }, { path: 'big.txt', offset: null, limit: null }]) {
    const { output } = await throughModel({ read: readTool({ root }) }, 'read', input);
    assert.equal(output.type, 'text');
    assert.equal(output.value, mcpText(await server.call('read', input)), JSON.stringify(input));
  }
  const { output } = await throughModel({ read: readTool({ root }) }, 'read', { path: 'big.txt' });
  assert.ok(output.value.startsWith('     1\tline 1 of the file\n'));
  // Profile read's budget of 8000 characters ends the page at the last
  // whole line that fits, before its 500 lines.
  let kept = 0;
  let last = 0;
  while (last < 500) {
    const line = `${String(last + 1).padStart(6)}\tline ${last + 1} of the file\n`;
    if (kept + line.length > 8000) break;
    kept += line.length;
    last += 1;
  }
  assert.ok(last < 500);
  assert.ok(output.value.endsWith(`\tline ${last} of the file\n... (truncated, showing lines 1-${last} of 3000, next offset ${last})\n`));
});

test('grep: many hits reach the model as the first 50 and the exact total', async () => {
  for (const input of [{ pattern: 'hit' }, { pattern: 'HIT \\d+ in b', case_insensitive: true }, { pattern: 'hit', glob: 'a.*' }, { pattern: 'nothing' }]) {
    const { output } = await throughModel({ grep: grepTool({ root }) }, 'grep', input);
    assert.equal(output.value, mcpText(await server.call('grep', input)), JSON.stringify(input));
  }
  const { output } = await throughModel({ grep: grepTool({ root }) }, 'grep', { pattern: 'hit' });
  assert.ok(output.value.startsWith('src/a.txt:2:hit 1 in a.txt\n'));
  assert.ok(output.value.endsWith('\n... (160 total, showing first 50)\n'));
});

test("grep: every argument of the server's gives, to the byte, what the server gives", async () => {
  fs.mkdirSync(path.join(root, 'code'), { recursive: true });
  fs.writeFileSync(path.join(root, 'code', 'main.rs'), 'fn main() {\n    let hit = 1;\n}\nfn other() {}\n');
  fs.writeFileSync(path.join(root, 'code', 'tool.py'), 'def main():\n    hit = 1\n');
  fs.writeFileSync(path.join(root, 'code', 'span.txt'), 'start of it\nend of it\nstart alone\n');
  const inputs = [
    { pattern: 'hit', output_mode: 'content' },
    { pattern: 'hit', output_mode: 'files_with_matches' },
    { pattern: 'hit', output_mode: 'count' },
    { pattern: 'hit', output_mode: 'count', limit: 2 },
    { pattern: 'hit 4\\d', path: 'src', context: 1 },
    { pattern: 'hit 4\\d', path: 'src', context_before: 2, context_after: 0 },
    { pattern: 'hit 4\\d', path: 'src/a.txt', context_before: 1, context: 3 },
    { pattern: 'hit 4\\d', path: 'src', context_after: 2, output_mode: 'files_with_matches' },
    { pattern: 'hit|fn', type: 'rust' },
    { pattern: 'hit', type: 'py', path: 'code' },
    { pattern: 'it\\nend', multiline: true },
    { pattern: 'it\\nend', multiline: false },
    { pattern: 'hit', offset: 50, limit: 20 },
    { pattern: 'hit', offset: 150 },
    { pattern: 'hit', offset: 1000 },
    { pattern: 'hit', limit: 3, case_insensitive: false, multiline: null, glob: null, type: null, path: null },
    { pattern: 'x', type: 'no-such-type' },
    { pattern: 'x', glob: '[' },
  ];
  for (const input of inputs) {
    const { output } = await throughModel({ grep: grepTool({ root }) }, 'grep', input);
    const served = await server.call('grep', input);
    assert.equal(output.type, served.isError ? 'error-text' : 'text', JSON.stringify(input));
    assert.equal(output.value, mcpText(served), JSON.stringify(input));
  }
  fs.rmSync(path.join(root, 'code'), { recursive: true });
});

test("grep: an argument out of the schema reaches the model as the SDK's refusal", async () => {
  for (const input of [{ pattern: 'hit', limit: 0 }, { pattern: 'hit', context: -1 }, { pattern: 'hit', output_mode: 'lines' }, { pattern: 'hit', context: 2 ** 32 }]) {
    const { output } = await throughModel({ grep: grepTool({ root }) }, 'grep', input);
    assert.equal(output.type, 'error-text', JSON.stringify(input));
    // ai 7 names the error's class before its text, ai 6 does not.
    assert.match(output.value, /^(AI_InvalidToolInputError: )?Invalid input for tool grep: /, JSON.stringify(input));
  }
});

test('a path outside the root is the error the server gives, and the model is told it', async () => {
  for (const [name, tools, input] of [
    ['read', { read: readTool({ root }) }, { path: '../outside' }],
    ['read', { read: readTool({ root }) }, { path: 'src' }],
    ['grep', { grep: grepTool({ root }) }, { pattern: 'x', path: '/etc' }],
    ['grep', { grep: grepTool({ root }) }, { pattern: '(' }],
  ]) {
    const { output } = await throughModel(tools, name, input);
    const served = await server.call(name, input);
    assert.equal(served.isError, true);
    assert.equal(output.type, 'error-text', JSON.stringify(input));
    assert.equal(output.value, mcpText(served), JSON.stringify(input));
  }
});

test('needsApproval: a call that needs approval is not run', async () => {
  const marker = path.join(root, 'ran');
  const { steps, result } = await throughModel(
    { bash: bashTool({ root, needsApproval: true }) },
    'bash',
    { command: `touch ${marker}` },
  );
  assert.equal(steps, 1);
  assert.ok(result.content.some((c) => c.type === 'tool-approval-request'));
  assert.equal(fs.existsSync(marker), false);
});

/**
 * What a JSON schema of one argument allows, in one shape for zod's schema
 * and the server's: its types (null among them when null is allowed), its
 * bounds, its values. A 64-bit bound is as no bound: JavaScript's numbers
 * stop at 2^53 either way.
 */
function allows(spec, defs) {
  const parts = spec.anyOf ?? [spec];
  const types = new Set();
  let values;
  let { minimum, maximum } = {};
  for (let part of parts) {
    if (part.$ref) part = defs[part.$ref.split('/').pop()];
    if (part.oneOf) values = part.oneOf.map((o) => o.const);
    if (part.enum) values = part.enum;
    for (const type of [part.type ?? (part.oneOf ? 'string' : [])].flat()) types.add(type);
    minimum = part.minimum ?? minimum;
    maximum = part.maximum ?? (part.format === 'uint32' ? 2 ** 32 - 1 : maximum);
  }
  if (maximum === Number.MAX_SAFE_INTEGER) maximum = undefined;
  return { types: [...types].sort(), minimum, maximum, values };
}

test("the tools take every argument of the server's, with its description and constraints", async () => {
  const listed = await server.list();
  const mine = { read: readTool({ root }), grep: grepTool({ root }), bash: bashTool({ root }) };
  const { z } = await import('zod');
  for (const served of listed) {
    const tool = mine[served.name];
    assert.equal(tool.description, served.description, served.name);
    const schema = z.toJSONSchema(tool.inputSchema);
    assert.deepEqual(Object.keys(schema.properties).sort(), Object.keys(served.inputSchema.properties).sort(), served.name);
    for (const [arg, spec] of Object.entries(served.inputSchema.properties)) {
      const ours = schema.properties[arg];
      assert.equal(ours.description, spec.description, `${served.name}.${arg}`);
      assert.deepEqual(allows(ours, {}), allows(spec, served.inputSchema.$defs ?? {}), `${served.name}.${arg}`);
    }
    assert.deepEqual(schema.required ?? [], served.inputSchema.required ?? [], served.name);
  }
  assert.deepEqual(listed.map((t) => t.name).sort(), ['bash', 'grep', 'read']);
});

test('bash: what a command leaves running in the background is ended after the call', async () => {
  const tool = bashTool({ root });
  // The second job has left the session (setsid) before the command ends:
  // the command waits (up to 10 s) until it runs sleep, after setsid.
  const script = [
    'sleep 300 >/dev/null 2>&1 & echo $!',
    'setsid sleep 301 >/dev/null 2>&1 & p=$!',
    'i=0; until [ "$(tr "\\0" " " </proc/$p/cmdline)" = "sleep 301 " ] || [ $i = 1000 ]; do sleep 0.01; i=$((i+1)); done',
  ].join('\n');
  const text = await tool.execute({ command: script }, { toolCallId: 'bg', messages: [] });
  const pid = Number(text.trim());
  assert.ok(pid > 0, text);
  // Bounded wait for the grace (2 s) and the kill, polled.
  const deadline = Date.now() + 30000;
  const alive = () => {
    try {
      return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z');
    } catch {
      return false;
    }
  };
  const setsidAlive = () =>
    fs.readdirSync('/proc').some((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8') === 'sleep\x00301\x00';
      } catch {
        return false;
      }
    });
  while ((alive() || setsidAlive()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(alive(), false, 'the background job is gone');
  assert.equal(setsidAlive(), false, 'the job that left the session is gone');
});

/** The live (not zombie) processes whose process group is GROUP, or whose command line is CMDLINE. */
function processes({ group, cmdline }) {
  const found = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const [, rest] = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(/\) (?=[A-Z] )/);
      const [state, , pgrp] = rest.split(' ');
      if (state === 'Z') continue;
      if (group !== undefined && Number(pgrp) === group) found.push({ pid: Number(pid), group: Number(pgrp) });
      if (cmdline !== undefined && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') === cmdline) found.push({ pid: Number(pid), group: Number(pgrp) });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Polls CONDITION every 20 ms until it holds, at most LIMIT ms: whether it held. */
async function until(condition, limit = 30000) {
  const deadline = Date.now() + limit;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

test('bash: aborting generateText ends the running call and its whole process group at once', async () => {
  const controller = new AbortController();
  const ended = [];
  const model = new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: 'tool-call', toolCallId: 'long', toolName: 'bash', input: JSON.stringify({ command: 'echo started; sleep 3071 & sleep 3072' }) }],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage,
      warnings: [],
    }),
  });
  // What the tool's execute gave the SDK, caught as it leaves it (ai 6
  // has no onToolExecutionEnd).
  const bash = bashTool({ root });
  const execute = bash.execute;
  bash.execute = (...args) =>
    execute(...args).catch((error) => {
      ended.push({ type: 'tool-error', error });
      throw error;
    });
  const running = generateText({
    model,
    tools: { bash },
    prompt: 'go',
    stopWhen: stepCountIs(3),
    abortSignal: controller.signal,
  }).then(
    () => 'resolved',
    (e) => e,
  );
  // The command runs: both of its processes exist, in one group.
  assert.ok(await until(() => processes({ cmdline: 'sleep\x003071\x00' }).length && processes({ cmdline: 'sleep\x003072\x00' }).length));
  const [{ group }] = processes({ cmdline: 'sleep\x003072\x00' });
  assert.deepEqual(processes({ cmdline: 'sleep\x003071\x00' }).map((p) => p.group), [group]);
  controller.abort();
  const outcome = await running;
  assert.notEqual(outcome, 'resolved');
  assert.ok(await until(() => processes({ group }).length === 0), 'the process group is gone');
  assert.ok(await until(() => ended.length > 0), 'the call ended');
  assert.equal(ended.length, 1);
  // The shell died of the SIGTERM the group got at once (not of the
  // SIGKILL that would follow the grace).
  assert.equal(ended[0].type, 'tool-error');
  assert.equal(String(ended[0].error), 'started\n(exit status 143, killed by SIGTERM)\n(the call was aborted: its command was stopped)');
});

test('bash: a call whose signal is aborted already runs nothing', async () => {
  const marker = path.join(root, 'not-run');
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    bashTool({ root }).execute({ command: `touch ${marker}` }, { toolCallId: 'x', messages: [], abortSignal: controller.signal }),
    (e) => String(e) === '(the call was aborted: its command was stopped)',
  );
  assert.equal(fs.existsSync(marker), false);
});

test("bash: saved outputs past the server's bound are removed oldest first, as the server removes them", async () => {
  // Each `seq 1 3000` is 13893 bytes: two fit in 30000, three do not.
  // The bound is read when the tools of a root are made, as the server
  // reads it at its start.
  const own = fs.mkdtempSync(path.join(os.tmpdir(), 'capout-node-saved-'));
  process.env.CAPOUT_MCP_SAVED_MAX = '30000';
  let bash;
  try {
    bash = bashTool({ root: own });
  } finally {
    delete process.env.CAPOUT_MCP_SAVED_MAX;
  }
  const notice = /full output: (.+)\)\n$/;
  const savedPath = async (i) => (await bash.execute({ command: 'seq 1 3000' }, { toolCallId: String(i), messages: [] })).match(notice)[1];
  const first = await savedPath(1);
  const second = await savedPath(2);
  assert.ok(fs.existsSync(first) && fs.existsSync(second));
  const third = await savedPath(3);
  assert.equal(fs.existsSync(first), false, `${first} was kept`);
  assert.ok(fs.existsSync(second) && fs.existsSync(third));
  assert.equal(fs.readFileSync(third, 'utf8'), Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join(''));
  fs.rmSync(own, { recursive: true });
});

test('a bound on saved outputs that is no number is refused when the tools are made', () => {
  const own = fs.mkdtempSync(path.join(os.tmpdir(), 'capout-node-saved-'));
  process.env.CAPOUT_MCP_SAVED_MAX = 'lots';
  try {
    assert.throws(() => bashTool({ root: own }), { message: 'capout: CAPOUT_MCP_SAVED_MAX: not a number of bytes: lots' });
  } finally {
    delete process.env.CAPOUT_MCP_SAVED_MAX;
    fs.rmSync(own, { recursive: true });
  }
});
