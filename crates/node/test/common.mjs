// What the tests share: the capout binary as the oracle, run with a clean
// environment, and the translation of the options object into its words.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const bin = process.env.CAPOUT_BIN;
export const mcpBin = process.env.CAPOUT_MCP_BIN;
if (!bin || !mcpBin) throw new Error('CAPOUT_BIN and CAPOUT_MCP_BIN must name the binaries (crates/node/test/run.sh sets them)');

export const home = fs.mkdtempSync(path.join(os.tmpdir(), 'capout-node-home-'));
export const cleanEnv = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home, LC_ALL: 'C' };

/** capout ARGS with INPUT on stdin: its status, stdout (a Buffer) and stderr. */
export function cli(args, input = '') {
  const r = spawnSync(bin, args, { input, env: cleanEnv, maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString() };
}

/** The CLI's words for an options object, written independently of the module. */
export function words(options) {
  const out = [];
  for (const [key, value] of Object.entries(options)) {
    const flag = '--' + key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
    if (value === true) out.push(flag);
    else if (value === false) out.push('--no-' + flag.slice(2));
    else out.push(`${flag}=${value}`);
  }
  return out;
}

const camel = (k) => k.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

/** The summary that `capout --json` gives for the same input: its fields but the output and the command's. */
export function cliSummary(options, input) {
  const r = cli([...words(options), '--json'], input);
  const object = JSON.parse(r.stdout.toString());
  const summary = {};
  for (const [key, value] of Object.entries(object)) {
    if (['output', 'exit_code', 'signal', 'timed_out'].includes(key)) continue;
    summary[key === 'error' ? 'saveError' : camel(key)] = value;
  }
  return summary;
}

/**
 * capout-mcp over ROOT, as a client drives it (line-delimited JSON-RPC):
 * `call(name, args)` is the result of tools/call, `list()` of tools/list.
 */
export async function mcpServer(root) {
  const { spawn } = await import('node:child_process');
  const child = spawn(mcpBin, ['--root', root], { env: cleanEnv, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const message = JSON.parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      waiting.get(message.id)?.(message);
    }
  });
  let id = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      waiting.set(++id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'test', version: '1' },
  });
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  return {
    call: async (name, args) => (await request('tools/call', { name, arguments: args })).result,
    list: async () => (await request('tools/list', {})).result.tools,
    close: () =>
      new Promise((resolve) => {
        child.on('close', resolve);
        child.stdin.end();
      }),
  };
}
