// The module's figures: push throughput on 64 MiB in 64 KiB chunks against
// the Rust library's on the same data (examples/node_push_bench.rs, run
// beside it), what one push costs, cap() of 1 KiB, and bashTool on
// `seq 100000` against execSync and slice(-5000). Run by bench.sh.
//
// The machine may be busy with other work: the figures of the module's
// own calls are CPU time (user and system, of the process, as
// process.cpuUsage() gives it), which that work does not add to, the best
// of many runs. The Rust side's runs alternate with these, one of each in
// turn, so that a burst of load falls on both alike.
import { execSync, spawn } from 'node:child_process';
import readline from 'node:readline';
import { Capper, cap } from 'capout';
import { bashTool } from 'capout/ai-sdk';

const TOTAL = 64 << 20;
const CHUNK = 64 << 10;
const ROUNDS = Number(process.env.ROUNDS ?? 40);
const lines = [];
let size = 0;
for (let n = 1; size < TOTAL; n++) {
  const line = `line ${n} of the benchmark, with some text after it\n`;
  lines.push(line);
  size += line.length;
}
const data = Buffer.from(lines.join('')).subarray(0, TOTAL);
const chunks = [];
for (let i = 0; i < TOTAL; i += CHUNK) chunks.push(data.subarray(i, i + CHUNK));

/** The CPU time `work` takes, in milliseconds. */
const cpuMs = (work) => {
  const before = process.cpuUsage();
  work();
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000;
};
const best = (runs) => Math.min(...runs);
const median = (runs) => {
  const sorted = [...runs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

// The Rust library's runs, one for each line it is sent.
const rust = spawn(process.env.RUST_BENCH, ['--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
const replies = readline.createInterface({ input: rust.stdout })[Symbol.asyncIterator]();
const rustMs = async (name) => {
  rust.stdin.write(`${name}\n`);
  const { value, done } = await replies.next();
  if (done) throw new Error('the Rust side of the benchmark ended');
  return Number(value);
};

const pushCaps = [
  ['tailChars 5000', { tailChars: 5000 }],
  ['headLines 100', { headLines: 100 }],
  ['tailLines 100', { tailLines: 100 }],
];
const nodeRuns = pushCaps.map(() => []);
const rustRuns = pushCaps.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, [name, options]] of pushCaps.entries()) {
    const node = () =>
      nodeRuns[i].push(
        cpuMs(() => {
          const capper = new Capper(options);
          for (const chunk of chunks) capper.push(chunk);
          capper.finish();
        }),
      );
    // Each side first in every other round.
    if (round % 2) node();
    rustRuns[i].push(await rustMs(name));
    if (!(round % 2)) node();
  }
}
rust.stdin.end();
for (const [i, [name]] of pushCaps.entries()) {
  const [n, r] = [best(nodeRuns[i]), best(rustRuns[i])];
  console.log(
    `push ${name}: node ${n.toFixed(2)} ms (${((64 / n) * 1000).toFixed(0)} MiB/s), rust ${r.toFixed(2)} ms: ` +
      `${(n / r).toFixed(2)}x (best of ${ROUNDS} runs each, CPU time; medians ${median(nodeRuns[i]).toFixed(2)} and ${median(rustRuns[i]).toFixed(2)} ms)`,
  );
}

// What a push costs of its own: a million pushes of one 64-byte line into
// a tail cap, which writes nothing until the end.
for (const [name, line] of [['a Buffer', Buffer.from('x'.repeat(63) + '\n')], ['a string', 'x'.repeat(63) + '\n']]) {
  const calls = 1000000;
  const runs = [];
  for (let round = 0; round < 5; round++) {
    const capper = new Capper({ tailChars: 5000 });
    runs.push(cpuMs(() => {
      for (let i = 0; i < calls; i++) capper.push(line);
    }));
    capper.finish();
  }
  console.log(`push of 64 bytes as ${name}: ${((best(runs) * 1e6) / calls).toFixed(0)} ns/call (CPU time, best of 5 runs)`);
}

const kib = 'x'.repeat(63) + '\n';
const text = kib.repeat(16);
for (const [name, options] of [['{}', undefined], ['{ tailChars: 100 }', { tailChars: 100 }], ['{ headLines: 5 }', { headLines: 5 }]]) {
  const calls = 20000;
  for (let i = 0; i < 1000; i++) cap(text, options);
  const runs = [];
  for (let round = 0; round < 10; round++) {
    runs.push(cpuMs(() => {
      for (let i = 0; i < calls; i++) cap(text, options);
    }));
  }
  const perCall = (ms) => ((ms * 1000) / calls).toFixed(2);
  console.log(`cap() of 1 KiB, ${name}: ${perCall(best(runs))} µs/call (CPU time, best of 10 runs; median ${perCall(median(runs))})`);
}

// A call that runs a command waits for it: these are wall-clock times, the
// latency a harness sees, each way in turn.
const bash = bashTool({ root: '.' });
const wallMs = async (work) => {
  const t0 = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - t0) / 1e6;
};
const tool = [];
const exec = [];
for (let i = 0; i < 20; i++) {
  tool.push(await wallMs(() => bash.execute({ command: 'seq 100000' }, { toolCallId: String(i), messages: [] })));
  exec.push(await wallMs(() => execSync('seq 100000').toString().slice(-5000)));
}
console.log(`bashTool seq 100000: ${best(tool).toFixed(1)} ms/call (wall time, best of 20; median ${median(tool).toFixed(1)})`);
console.log(`execSync + slice(-5000) seq 100000: ${best(exec).toFixed(1)} ms/call (wall time, best of 20; median ${median(exec).toFixed(1)})`);
