// Type-checked by types.test.mjs (tsc --noEmit): the package's types as
// an ES module sees them.
import { Capper, cap, type CapOptions, type Summary } from 'capout';
import { bashTool, grepTool, readTool, ToolError } from 'capout/ai-sdk';

const options: CapOptions = { tailLines: 5, stripAnsi: true, profile: 'bash', notice: 'stderr' };
const capper = new Capper(options);
const now: Buffer = capper.push('text');
const { output, summary }: { output: Buffer; summary: Summary } = capper.finish();
const lines: number | null = summary.totalLines;
const limit: number | [number, number] = summary.limit;
const text: string = cap(Buffer.from('text'), { headLines: 2, offset: 1 });
const json: Summary = new Capper({ headChars: 8000, jsonItems: 50, jsonStringChars: 200 }).finish().summary;
const kept: number | null = json.jsonItemsKept;
const tools = {
  bash: bashTool({ root: '.', timeout: 30, needsApproval: true }),
  read: readTool(),
  grep: grepTool({ root: '.', needsApproval: async ({ pattern }) => pattern.length > 0 }),
};
const error: Error = new ToolError('x');
export { now, output, lines, limit, text, kept, tools, error };
