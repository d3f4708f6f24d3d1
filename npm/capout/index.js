// capout for Node.js: the native module of this platform's package
// (capout-linux-x64 and so on, one of the optionalDependencies), which
// holds the engine. cap() is its own function; Capper wraps its own.
'use strict';

const pkg = `capout-${process.platform}-${process.arch}`;
let native;
try {
  native = require(`${pkg}/capout.node`);
} catch (e) {
  const missing = e.code === 'MODULE_NOT_FOUND' && String(e.message).includes(pkg);
  throw new Error(
    missing
      ? `capout: no native module for ${process.platform}-${process.arch}: the package ${pkg} is not installed (install it beside capout)`
      : `capout: cannot load the native module of ${pkg}: ${e.message}`,
    { cause: e },
  );
}

// A `bash` call of the tools learns that its command exited from SIGCHLD,
// through a handler chained over the one libuv installs for
// child_process. When the last child that libuv watches has exited, libuv
// puts back the default disposition, and the handler chained over its own
// goes with it: a call running then would wait for good. A listener of
// Node's own, from the start, keeps libuv's handler (and so the one
// chained over it) in place for the life of the process; Node's signal
// listeners do not keep the process alive.
process.on('SIGCHLD', () => {});

// No process that a `bash` call of the tools started outlives the
// process: at its exit (process.exit included) every call still running
// is ended with what it left, and the folders of saved outputs go. On the
// main thread only: a worker's 'exit' is the worker's, and the module's
// calls are the whole process's.
if (require('node:worker_threads').isMainThread) process.on('exit', native.atExit);

// What a push that writes nothing returns (a tail cap writes nothing
// until the end): one empty Buffer, frozen, for every such push, as making
// a Buffer costs more than the push itself.
const EMPTY = Object.freeze(Buffer.alloc(0));

/** Caps a stream pushed in chunks of any size, split anywhere. */
class Capper {
  // The native stream: an external value its functions take.
  #stream;

  constructor(options) {
    this.#stream = native.capperNew(options);
  }

  /** Takes the next chunk; returns what may be written now. */
  push(chunk) {
    if (typeof chunk === 'string') return native.capperPushText(this.#stream, chunk) ?? EMPTY;
    try {
      return native.capperPush(this.#stream, chunk) ?? EMPTY;
    } catch (e) {
      if (ArrayBuffer.isView(chunk)) throw e;
      throw new TypeError(`capout: push takes a Buffer or a string, not ${chunk === null ? 'null' : typeof chunk}`);
    }
  }

  /** Ends the stream: what the cap held back and the notice, and the summary. */
  finish() {
    return native.capperFinish(this.#stream);
  }
}

module.exports = {
  Capper,
  cap: native.cap,
  // For capout/ai-sdk: the MCP server's tools and their texts.
  Tools: native.Tools,
  toolDescriptions: native.toolDescriptions,
  bashStopper: native.bashStopper,
  bashStop: native.bashStop,
};
