// Runs a program of this platform's package (capout-linux-x64 and so on,
// one of the optionalDependencies), capout or capout-mcp, with our
// arguments, and ends as it ends: with its exit status, or killed by the
// same signal. bin/capout.js and bin/capout-mcp.js are its two commands.
'use strict';

const { spawn } = require('child_process');
const { constants } = require('os');
const path = require('path');

module.exports = function launch(name) {
  const pkg = `capout-${process.platform}-${process.arch}`;
  let binary;
  try {
    binary = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', name);
  } catch (e) {
    process.stderr.write(
      `${name}: no binary for ${process.platform}-${process.arch}: the package ${pkg} is not installed ` +
        '(install it beside capout, or install capout with cargo)\n',
    );
    process.exit(1);
  }

  // A signal sent to us is for the program. (Ctrl-C reaches both of us from
  // the terminal; capout takes a second SIGINT as it takes the first.) Caught
  // before the program starts, so none is lost in between: the handlers run
  // only after this script has, when `child` is set.
  const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
  const forward = (signal) => child.kill(signal);
  for (const signal of forwarded) process.on(signal, forward);

  const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit' });

  child.on('error', (e) => {
    process.stderr.write(`${name}: cannot run ${binary}: ${e.message}\n`);
    process.exit(1);
  });

  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code);
    // Die of the same signal, so that our parent sees what the program's would.
    for (const s of forwarded) process.removeListener(s, forward);
    process.kill(process.pid, signal);
    // A signal that Node ignores (SIGPIPE): end as a shell reports one.
    process.exit(128 + (constants.signals[signal] || 0));
  });
};
