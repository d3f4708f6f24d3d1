// Bad options throw the CLI's own message; a finished Capper says so; a
// stream that fails midway gives the bounded text of what arrived.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { Capper, cap } from 'capout';
import { capStreams, runCapped } from '../examples/run-capped.mjs';
import { cli, words } from './common.mjs';

const bad = [
  { offset: 3 },
  { tailChars: -1 },
  { tailChars: 0 },
  { tailChars: 1.5 },
  { tailChars: 'many' },
  { tailChars: 5, headLines: 2 },
  { maxMatches: 2, pattern: '(' },
  { keep: '[' },
  { pattern: 'x' },
  { headLines: 2, tokenizer: 'nope' },
  { noticeFormat: '{nope}' },
  { profile: 'nope' },
  { renderWidth: 80 },
  { headLines: 2, lineNumbers: true, keepMax: 3 },
];

for (const options of bad) {
  test(`a bad option throws the CLI's message: ${JSON.stringify(options)}`, () => {
    const want = cli(words(options));
    assert.equal(want.status, 2, 'the CLI rejects it');
    const message = want.stderr.trimEnd();
    assert.throws(() => new Capper(options), (e) => e instanceof Error && e.message === message);
    assert.throws(() => cap('x', options), (e) => e instanceof Error && e.message === message);
  });
}

test('options the Capper does not take are named, with the known ones', () => {
  for (const key of ['json', 'command', 'input', 'progress', 'tailchars']) {
    assert.throws(
      () => new Capper({ [key]: true }),
      (e) => e.message.startsWith(`capout: unknown option '${key}' (known: tailChars, headChars, `),
    );
  }
  assert.throws(() => new Capper({ tailChars: [1] }), {
    message: "capout: option 'tailChars' takes a number, a string or a boolean",
  });
  assert.throws(() => new Capper('tailChars'), { message: 'capout: the options must be an object' });
});

test('null and undefined options are the defaults', () => {
  const text = 'x'.repeat(6000);
  const want = cli([], text).stdout.toString();
  assert.equal(cap(text), want);
  assert.equal(cap(text, null), want);
  assert.equal(cap(text, { tailChars: undefined, headLines: null }), want);
});

test('a finished Capper throws on push and finish', () => {
  const capper = new Capper();
  capper.push('a');
  capper.finish();
  const message = 'capout: the Capper has finished: make a new one';
  assert.throws(() => capper.push('b'), { message });
  assert.throws(() => capper.finish(), { message });
});

test('a push of what is neither a Buffer nor a string throws a TypeError that says so', () => {
  const capper = new Capper();
  for (const [chunk, what] of [[123, 'number'], [null, 'null'], [{}, 'object'], [undefined, 'undefined']]) {
    assert.throws(() => capper.push(chunk), { name: 'TypeError', message: `capout: push takes a Buffer or a string, not ${what}` });
  }
  // A Uint8Array is taken as a Buffer is; the stream goes on.
  assert.deepEqual(capper.push(new Uint8Array([104, 105])), Buffer.alloc(0));
  assert.equal(capper.finish().output.toString(), 'hi');
});

test('a stream that fails midway: the bounded text of what arrived, and the error', async () => {
  const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}\n`);
  let sent = 0;
  const failing = new Readable({
    read() {
      if (sent === 30) this.destroy(new Error('the disk went away'));
      else this.push(lines[sent++]);
    },
  });
  const { text, summary, error } = await capStreams([failing], { tailLines: 3 });
  assert.equal(error.message, 'the disk went away');
  const arrived = lines.slice(0, 30).join('');
  assert.equal(text, cli(['--tail-lines', '3'], arrived).stdout.toString());
  assert.equal(text, 'line 28\nline 29\nline 30\n... (truncated, showing last 3 lines)\n');
  assert.equal(summary.totalLines, 30);
});

test('the example: a command run, stdout and stderr capped together', async () => {
  const got = await runCapped('sh', ['-c', 'seq 100000; echo oops >&2; exit 3']);
  assert.equal(got.code, 3);
  const want = cli(['--', 'sh', '-c', 'seq 100000; echo oops >&2']).stdout.toString();
  assert.equal(got.text, want);
  assert.ok(got.text.endsWith('99999\n100000\noops\n... (truncated, showing last 5000 chars)\n'));
});
