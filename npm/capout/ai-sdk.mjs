// capout/ai-sdk: the tools of `capout --mcp` (read, grep, bash) as tools
// of the Vercel AI SDK. The work is the server's own functions, in the
// native module: the same caps, notices and root rules. This file only
// describes them to the SDK.
import path from 'node:path';
import { tool } from 'ai';
import { z } from 'zod';
import { Tools, bashStop, bashStopper, toolDescriptions } from './index.mjs';

const texts = toolDescriptions();

// One set of tools per root, so that `read` pages what `bash` saved.
const open = new Map();
function toolsFor(root) {
  const key = path.resolve(root ?? process.cwd());
  let tools = open.get(key);
  if (!tools) {
    tools = new Tools(key);
    if (open.size === 0) process.once('exit', () => open.forEach((t) => t.close()));
    open.set(key, tools);
  }
  return tools;
}

/**
 * A tool's error, as the server returns it: the AI SDK sends the model an
 * error's toString(), which here is the text alone ("Error: " would be
 * the SDK's, not the server's).
 */
export class ToolError extends Error {
  toString() {
    return this.message;
  }
}
const told = (call) =>
  call.catch((e) => {
    throw new ToolError(e.message, { cause: e });
  });

// The server's schema: each argument but the first may be absent or null;
// numbers are whole, with its bounds (a count of lines fits in 32 bits).
// A null argument is as if absent, as the server takes it.
const given = (input) => Object.fromEntries(Object.entries(input).filter(([, value]) => value != null));

const whole = (text, min = 0) => z.number().int().min(min).nullish().describe(text);
const lines = (text) => z.number().int().min(0).max(2 ** 32 - 1).nullish().describe(text);
const text = (what) => z.string().nullish().describe(what);
const flag = (what) => z.boolean().nullish().describe(what);

// What every tool takes: the SDK's approval, as `needsApproval` is given.
const approval = (options) =>
  options.needsApproval === undefined ? {} : { needsApproval: options.needsApproval };

/** `read`: a file's lines, numbered, `limit` (default 500) after `offset`. */
export function readTool(options = {}) {
  const tools = toolsFor(options.root);
  const args = texts.read.args;
  return tool({
    description: texts.read.description,
    inputSchema: z.object({
      path: z.string().describe(args.path),
      offset: whole(args.offset),
      limit: whole(args.limit, 1),
    }),
    ...approval(options),
    execute: ({ path: file, offset, limit }) => told(tools.read(file, offset ?? undefined, limit ?? undefined)),
  });
}

/** `grep`: the matching lines, as ripgrep walks, the first 50; every argument of the server's. */
export function grepTool(options = {}) {
  const tools = toolsFor(options.root);
  const args = texts.grep.args;
  return tool({
    description: texts.grep.description,
    inputSchema: z.object({
      pattern: z.string().describe(args.pattern),
      path: text(args.path),
      glob: text(args.glob),
      type: text(args.type),
      output_mode: z.enum(['content', 'files_with_matches', 'count']).nullish().describe(args.output_mode),
      context_before: lines(args.context_before),
      context_after: lines(args.context_after),
      context: lines(args.context),
      case_insensitive: flag(args.case_insensitive),
      multiline: flag(args.multiline),
      offset: whole(args.offset),
      limit: whole(args.limit, 1),
    }),
    ...approval(options),
    execute: (input) => told(tools.grep(given(input))),
  });
}

// What the model is told of a call that the harness aborted (the AI SDK's
// abortSignal: generateText's, or a tool timeout's).
const ABORTED = '(the call was aborted: its command was stopped)';

/**
 * One `bash` call that ABORT_SIGNAL ends: on abort its command's process
 * group gets SIGTERM at once (SIGKILL after the grace), and the call ends
 * with a ToolError: what the command wrote, its status, and a last line
 * that says it was aborted.
 */
async function run(tools, command, timeout, abortSignal) {
  if (abortSignal?.aborted) throw new ToolError(ABORTED);
  const stop = bashStopper();
  const onAbort = () => bashStop(stop);
  abortSignal?.addEventListener('abort', onAbort, { once: true });
  try {
    const text = await told(tools.bash(command, timeout, stop));
    if (abortSignal?.aborted) throw new ToolError(`${text}${ABORTED}`);
    return text;
  } finally {
    abortSignal?.removeEventListener('abort', onAbort);
  }
}

/** `bash`: `sh -c COMMAND` in the root, the last 5000 characters. */
export function bashTool(options = {}) {
  const tools = toolsFor(options.root);
  const args = texts.bash.args;
  return tool({
    description: texts.bash.description,
    inputSchema: z.object({
      command: z.string().describe(args.command),
      timeout: whole(args.timeout, 1),
    }),
    ...approval(options),
    execute: ({ command, timeout }, { abortSignal } = {}) => run(tools, command, timeout ?? options.timeout ?? undefined, abortSignal),
  });
}
