// capout/ai-sdk driven by the AI SDK's own mock model through
// generateText: the model calls a tool, and what it receives in the next
// step is, to the byte, what capout's MCP server answers the same call.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
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
  for (const input of [{ command: 'echo out; echo err >&2; exit 3' }, { command: 'sleep 5', timeout: 1 }, { command: 'true' }]) {
    const { output } = await throughModel({ bash: bashTool({ root }) }, 'bash', input);
    assert.equal(output.value, mcpText(await server.call('bash', input)), JSON.stringify(input));
  }
});

test('read: a 3,000-line file reaches the model as its first 500 lines, numbered, and the notice', async () => {
  for (const input of [{ path: 'big.txt' }, { path: 'big.txt', offset: 2990 }, { path: 'big.txt', offset: 10, limit: 3 }]) {
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

test('the tools describe themselves and their arguments as capout --mcp lists them', async () => {
  const listed = await server.list();
  const mine = { read: readTool({ root }), grep: grepTool({ root }), bash: bashTool({ root }) };
  const { z } = await import('zod');
  for (const served of listed) {
    const tool = mine[served.name];
    assert.equal(tool.description, served.description, served.name);
    const schema = z.toJSONSchema(tool.inputSchema);
    // Each argument the module's tool takes is one of the server's, with
    // the same description (grepTool takes pattern, path, glob and
    // case_insensitive of the server's grep).
    for (const [arg, mine] of Object.entries(schema.properties)) {
      const spec = served.inputSchema.properties[arg];
      assert.ok(spec, `${served.name}.${arg} is not an argument of the server's`);
      assert.equal(mine.description, spec.description, `${served.name}.${arg}`);
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
