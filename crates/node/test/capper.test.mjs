// The Capper against the CLI: the same input and options give the same
// bytes and the same summary as `capout` and `capout --json`, however the
// input is split into chunks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Capper, cap } from 'capout';
import { cli, cliSummary, words } from './common.mjs';

// Lines of several lengths, multi-byte characters (split by some chunk
// boundaries), an ANSI colour, a carriage return, and matches of `b`.
const sample = Buffer.from(
  'alpha\nbeta é\n\x1b[31mred\x1b[0m error\nprogress 10%\rprogress 100%\n' +
    'gamma 🦀 crab\ndelta b\nepsilon ERROR b\nzeta\neta b b\ntheta\niota\nkappa with a longer line\nlambda',
);

const caps = [
  {},
  { tailChars: 10 },
  { headChars: 10 },
  { headLines: 2 },
  { headLines: 2, offset: 3 },
  { headLines: 2, offset: 100 },
  { headLines: 100 },
  { tailLines: 2 },
  { maxMatches: 2, pattern: 'b' },
  { maxMatches: 1 },
  { maxMatches: 2, pattern: 'NOPE' },
  { maxMatches: 1, pattern: 'error', ignoreCase: true },
  { maxMatches: 2, pattern: 'b.', fixedStrings: true },
  { headChars: 5, tailChars: 5 },
  { headLines: 1, tailLines: 1 },
  { tailTokens: 5 },
  { headTokens: 5 },
  { headTokens: 3, tailTokens: 3 },
  { tailChars: 10, bytes: true },
  { headChars: 7, bytes: true },
  { headLines: 3, lineNumbers: true, maxLineChars: 4 },
  { tailChars: 20, maxLineChars: 3 },
  { tailChars: 30, stripAnsi: true },
  { tailLines: 12, collapseCr: true },
  { tailLines: 3, keep: 'error', ignoreCase: true },
  { headLines: 2, keep: 'b$', keepMax: 1 },
  { profile: 'grep' },
  { profile: 'read' },
  { profile: 'bash' },
  { tailChars: 9, noticeFormat: '[cut {omitted} of {total} {unit}]' },
  { headLines: 1, noticeFormat: '[{shown}/{limit}]' },
  { render: true, renderHeight: 3 },
  { tailChars: 10, notice: 'none' },
  { tailChars: 12, stripAnsi: false },
];

const label = (options) => JSON.stringify(options);

/** Everything a Capper writes for CHUNKS: every push's bytes, then finish's. */
function run(options, chunks) {
  const capper = new Capper(options);
  const parts = chunks.map((c) => capper.push(c));
  const { output, summary } = capper.finish();
  return { output: Buffer.concat([...parts, output]), summary };
}

for (const options of caps) {
  test(`the same bytes and summary as the CLI: ${label(options)}`, () => {
    const want = cli(words(options), sample);
    assert.equal(want.status, 0, want.stderr);
    const wantSummary = cliSummary(options, sample);
    const whole = run(options, [sample]);
    assert.equal(whole.output.toString('latin1'), want.stdout.toString('latin1'));
    assert.deepEqual(whole.summary, wantSummary);
    // Split at every position: two chunks, and one byte at a time.
    for (let i = 0; i <= sample.length; i++) {
      const split = run(options, [sample.subarray(0, i), sample.subarray(i)]);
      assert.equal(split.output.toString('latin1'), want.stdout.toString('latin1'), `split at ${i}`);
      assert.deepEqual(split.summary, wantSummary, `split at ${i}`);
    }
    const bytes = run(options, [...sample].map((b) => Buffer.from([b])));
    assert.equal(bytes.output.toString('latin1'), want.stdout.toString('latin1'), 'a byte at a time');
    assert.deepEqual(bytes.summary, wantSummary, 'a byte at a time');
    // cap() of the whole text is the same bytes.
    assert.equal(cap(sample.toString(), options), want.stdout.toString());
  });
}

test('JSON cut by its structure: the CLI bytes and every fact of the cut', () => {
  const doc = Buffer.from(JSON.stringify({ items: Array.from({ length: 40 }, (_, i) => ({ id: i, name: `n${i}` })) }));
  for (const options of [{ headChars: 4000, jsonItems: 3 }, { headChars: 4000, jsonItems: 2, jsonStringChars: 1 }]) {
    const want = cli(words(options), doc);
    const got = run(options, [doc.subarray(0, 7), doc.subarray(7)]);
    assert.equal(got.output.toString(), want.stdout.toString(), label(options));
    assert.deepEqual(got.summary, cliSummary(options, doc), label(options));
    assert.equal(got.summary.jsonItems, 40, label(options));
  }
});

test('an empty input: the CLI bytes and summary', () => {
  for (const options of [{}, { headLines: 3 }, { maxMatches: 2, pattern: 'x' }]) {
    const want = cli(words(options), '');
    const got = run(options, []);
    assert.equal(got.output.toString(), want.stdout.toString(), label(options));
    assert.deepEqual(got.summary, cliSummary(options, ''), label(options));
  }
});

test('a head cap gives what it keeps as it comes, before finish', () => {
  const capper = new Capper({ headLines: 2 });
  assert.equal(capper.push('one\ntw').toString(), 'one\ntw');
  assert.equal(capper.push('o\nthree\n').toString(), 'o\n');
  const { output, summary } = capper.finish();
  assert.equal(output.toString(), '... (truncated, showing lines 1-2 of 3, next offset 2)\n');
  assert.deepEqual([summary.first, summary.last, summary.nextOffset], [1, 2, 2]);
});

test('a push that writes nothing returns an empty Buffer', () => {
  const capper = new Capper({ tailChars: 3 });
  for (const chunk of ['abc', Buffer.from('def')]) {
    const out = capper.push(chunk);
    assert.ok(Buffer.isBuffer(out));
    assert.equal(out.length, 0);
  }
  assert.equal(capper.finish().output.toString(), 'def\n... (truncated, showing last 3 chars)\n');
});

test('strings and Buffers are the same bytes', () => {
  const a = run({ tailChars: 4 }, ['héllo ', 'wörld']);
  const b = run({ tailChars: 4 }, [Buffer.from('héllo '), Buffer.from('wörld')]);
  assert.deepEqual(a, b);
  assert.equal(a.output.toString(), 'örld\n... (truncated, showing last 4 chars)\n');
});

test('invalid UTF-8 passes through as bytes, as the CLI passes it', () => {
  const input = Buffer.from([0x61, 0xff, 0x62, 0x0a, 0xc3, 0x28, 0x0a, 0x7a]);
  for (const options of [{ tailChars: 3 }, { headLines: 1 }, { tailChars: 5, bytes: true }]) {
    assert.deepEqual(run(options, [input]).output, cli(words(options), input).stdout, label(options));
  }
});

test('the save option: the whole input saved, its path in the summary and notice, as the CLI', async () => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capout-node-save-'));
  const file = path.join(dir, 'all.log');
  const { output, summary } = run({ tailChars: 5, save: file }, [sample]);
  assert.deepEqual(fs.readFileSync(file), sample);
  assert.equal(summary.savedTo, file);
  const want = cli(words({ tailChars: 5, save: path.join(dir, 'cli.log') }), sample).stdout.toString();
  assert.equal(output.toString(), want.replace(path.join(dir, 'cli.log'), file));
});
