// capout/ai-sdk: the tools of `capout --mcp` (read, grep, bash) as tools
// of the Vercel AI SDK. The work is the server's own functions, in the
// native module: the same caps, notices and root rules. This file only
// describes them to the SDK.
import path from 'node:path';
import { tool } from 'ai';
import { z } from 'zod';
import { Tools, toolDescriptions } from './index.mjs';

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

const whole = (text) => z.number().int().min(0).optional().describe(text);

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
      limit: whole(args.limit),
    }),
    ...approval(options),
    execute: ({ path: file, offset, limit }) => told(tools.read(file, offset, limit)),
  });
}

/** `grep`: the matching lines, as ripgrep walks, the first 50. */
export function grepTool(options = {}) {
  const tools = toolsFor(options.root);
  const args = texts.grep.args;
  return tool({
    description: texts.grep.description,
    inputSchema: z.object({
      pattern: z.string().describe(args.pattern),
      path: z.string().optional().describe(args.path),
      glob: z.string().optional().describe(args.glob),
      case_insensitive: z.boolean().optional().describe(args.case_insensitive),
    }),
    ...approval(options),
    execute: ({ pattern, path: where, glob, case_insensitive }) =>
      told(tools.grep(pattern, where, glob, case_insensitive)),
  });
}

/** `bash`: `sh -c COMMAND` in the root, the last 5000 characters. */
export function bashTool(options = {}) {
  const tools = toolsFor(options.root);
  const args = texts.bash.args;
  return tool({
    description: texts.bash.description,
    inputSchema: z.object({
      command: z.string().describe(args.command),
      timeout: whole(args.timeout),
    }),
    ...approval(options),
    execute: ({ command, timeout }) => told(tools.bash(command, timeout ?? options.timeout)),
  });
}
