import type { Tool } from 'ai';
import type { GrepInput } from './index';

/** What each tool takes. */
export interface ToolOptions<INPUT> {
  /** The folder the tool works in and that paths may not leave (default: the current directory). */
  root?: string;
  /** The AI SDK's approval: `true`, or a function of the call's input. */
  needsApproval?: Tool<INPUT, string>['needsApproval'];
}

export interface ReadInput {
  path: string;
  offset?: number | null;
  limit?: number | null;
}
export type { GrepInput };
export interface BashInput {
  command: string;
  timeout?: number | null;
}

/** `read`: a file's lines, numbered, `limit` (default 500) after `offset`, as `capout --mcp` reads. */
export declare function readTool(options?: ToolOptions<ReadInput>): Tool<ReadInput, string>;
/** `grep`: the matching lines, the first 50, as `capout --mcp` searches, with every argument of its `grep`. */
export declare function grepTool(options?: ToolOptions<GrepInput>): Tool<GrepInput, string>;
/** `bash`: `sh -c COMMAND` in the root, the last 5000 characters, as `capout --mcp` runs it. */
export declare function bashTool(
  options?: ToolOptions<BashInput> & { /** Seconds before a command is stopped, when the call gives none (default 120). */ timeout?: number },
): Tool<BashInput, string>;

/** A tool's error: its message is the server's text, and so is its toString(). */
export declare class ToolError extends Error {}
