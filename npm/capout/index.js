// capout for Node.js: the native module of this platform's package
// (capout-linux-x64 and so on, one of the optionalDependencies), which
// holds the engine. Capper and cap() are its own classes and functions.
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

module.exports = {
  Capper: native.Capper,
  cap: native.cap,
  // For capout/ai-sdk: the MCP server's tools and their texts.
  Tools: native.Tools,
  toolDescriptions: native.toolDescriptions,
};
