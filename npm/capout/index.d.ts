/// <reference types="node" />

/**
 * The options of `capout`, in camelCase: `tailChars` is `--tail-chars`.
 * The defaults are the CLI's: with no cap, `tailChars: 5000`. A bad
 * option (or a bad combination) throws an `Error` whose message is what
 * `capout` prints for it. `false` for a switch is its `--no-` form.
 */
export interface CapOptions {
  tailChars?: number;
  headChars?: number;
  headLines?: number;
  tailLines?: number;
  /** Lines skipped before `headLines` starts. */
  offset?: number;
  maxMatches?: number;
  headTokens?: number;
  tailTokens?: number;
  tokenizer?: 'estimate' | 'o200k' | 'cl100k';
  /** With `maxMatches`: count only lines that match this regex. */
  pattern?: string;
  fixedStrings?: boolean;
  ignoreCase?: boolean;
  /** Characters kept of each line, 0 for all. */
  maxLineChars?: number;
  /** JSON input is cut by its structure: each array keeps its first N items, each object its first N members. */
  jsonItems?: number;
  /** With `jsonItems`: a string keeps its first M characters. */
  jsonStringChars?: number;
  bytes?: boolean;
  lineNumbers?: boolean;
  stripAnsi?: boolean;
  collapseCr?: boolean;
  render?: boolean;
  renderWidth?: number;
  renderHeight?: number;
  /** Show the cut lines that match this regex after the notice. */
  keep?: string;
  keepMax?: number;
  notice?: 'stdout' | 'stderr' | 'none';
  noticeFormat?: string;
  /** A built-in profile: `read`, `grep`, `bash` or `tool`. */
  profile?: string;
  /** Also write the whole stream, uncut, to this file. */
  save?: string;
  /** Also write the whole stream to a new file in this folder, removed when nothing was cut. */
  saveDir?: string;
}

/** What `capout --json` tells besides the output, with camelCase keys. */
export interface Summary {
  /** Every notice line, joined with `\n`; `null` when there is none. */
  notice: string | null;
  truncated: boolean;
  /** The cap's option name, such as `tail-chars`. */
  cap: string;
  /** Its limit; a pair for head and tail. */
  limit: number | [number, number];
  /** The character (or byte) budget of a line cap, `budgetChars`, when it has one. */
  budget: number | null;
  totalBytes: number;
  totalChars: number | null;
  totalLines: number | null;
  /** Matching lines, with `maxMatches`. */
  matches: number | null;
  /** What the cap counts: `chars`, `bytes`, `lines`, `matches` or `tokens`. */
  unit: string;
  omitted: number | null;
  /** With `headLines` or a paged `maxMatches`: the first and last line (match) shown, and the next page's offset while more follows. */
  first: number | null;
  last: number | null;
  nextOffset: number | null;
  totalTokens: number | null;
  tokenizer: string | null;
  /** With `jsonItems`, when the input was JSON to its end: the items kept and had by the arrays and objects cut, how many were cut, the strings cut short, and the documents of the stream kept and read. */
  jsonItemsKept: number | null;
  jsonItems: number | null;
  jsonArraysCut: number | null;
  jsonStringsCut: number | null;
  jsonDocumentsKept: number | null;
  jsonDocuments: number | null;
  /** With `jsonItems`: the byte at which the input stopped being JSON, when it did. */
  jsonEndedAt: number | null;
  /** Where the whole stream was saved, when it was. */
  savedTo: string | null;
  /** Why saving the whole stream failed part way (the output stands). */
  saveError: string | null;
}

/** Caps a stream pushed in chunks of any size, split anywhere. */
export declare class Capper {
  constructor(options?: CapOptions);
  /** Takes the next chunk; returns what may be written now. */
  push(chunk: Buffer | string): Buffer;
  /** Ends the stream: what the cap held back and the notice, and the summary. */
  finish(): { output: Buffer; summary: Summary };
}

/** What `capout` with these options prints for a whole text. */
export declare function cap(text: string | Buffer, options?: CapOptions): string;

/** The arguments of the server's `grep`, with its names. */
export interface GrepInput {
  pattern: string;
  path?: string | null;
  glob?: string | null;
  type?: string | null;
  output_mode?: 'content' | 'files_with_matches' | 'count' | null;
  context_before?: number | null;
  context_after?: number | null;
  context?: number | null;
  case_insensitive?: boolean | null;
  multiline?: boolean | null;
  offset?: number | null;
  limit?: number | null;
}
/** The MCP server's tools over one root (used by `capout/ai-sdk`). */
export declare class Tools {
  constructor(root: string);
  readonly savedDir: string;
  read(path: string, offset?: number | null, limit?: number | null): Promise<string>;
  /** The arguments of the server's `grep`, with its names (`output_mode`, `context_before`, …). */
  grep(input: GrepInput): Promise<string>;
  /** `stop` (from `bashStopper()`) ends the call while it runs, when `bashStop(stop)` is called. */
  bash(command: string, timeout: number | undefined, stop: BashStop): Promise<string>;
  /**
   * Ends the `bash` calls still running (their processes get SIGTERM and
   * SIGKILL at once; their promises settle) and removes the folder of
   * saved outputs. Safe while calls run, as at `process.exit`. The tools
   * still work after: the next call makes a new folder (`savedDir`).
   * At the process's exit the package does this for every `Tools`.
   */
  close(): void;
}

/** What ends a running `bash` call of `Tools` (an opaque value). */
export interface BashStop {
  readonly __capoutBashStop: unique symbol;
}
/** A new way to end a `bash` call while it runs. */
export declare function bashStopper(): BashStop;
/** Ends the `bash` call made with `stop`: its process group gets SIGTERM at once, then SIGKILL after the grace. */
export declare function bashStop(stop: BashStop): void;

/** The texts `capout --mcp` lists for its tools and their arguments. */
export declare function toolDescriptions(): Record<
  'read' | 'grep' | 'bash',
  { description: string; args: Record<string, string> }
>;
