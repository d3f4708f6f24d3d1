// Runs a command, caps its stdout and stderr together as they arrive (the
// order they come in), and gives the bounded text: what an agent shows a
// model instead of the whole output.
//
//   node run-capped.mjs seq 100000
import { spawn } from 'node:child_process';
import { Capper } from 'capout';

/**
 * Pushes every chunk of `streams` into one Capper; once all have ended,
 * or one fails, the bounded text of what arrived. A stream that fails
 * midway ends the text where it failed, and its error is given too.
 */
export function capStreams(streams, options = {}) {
  const capper = new Capper(options);
  const parts = [];
  return new Promise((resolve) => {
    let open = streams.length;
    let done = false;
    const end = (error) => {
      if (done) return;
      done = true;
      const { output, summary } = capper.finish();
      parts.push(output);
      resolve({ text: Buffer.concat(parts).toString(), summary, error });
    };
    if (open === 0) end();
    for (const stream of streams) {
      stream.on('data', (chunk) => {
        if (!done) parts.push(capper.push(chunk));
      });
      stream.on('error', end);
      stream.on('end', () => {
        if (--open === 0) end();
      });
    }
  });
}

/** `command args…`, capped as `options` say (the CLI's default: the last 5000 characters). */
export async function runCapped(command, args = [], options = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  const capped = await capStreams([child.stdout, child.stderr], options);
  return { ...capped, ...(await exited) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [command, ...args] = process.argv.slice(2);
  const { text, code } = await runCapped(command ?? 'seq', command ? args : ['100000']);
  process.stdout.write(text);
  process.exitCode = code ?? 1;
}
