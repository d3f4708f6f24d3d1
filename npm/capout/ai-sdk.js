// capout/ai-sdk for CommonJS: the ES module itself (the AI SDK is an ES
// module only), through require() of an ES module (Node 20.19 and 22.12 on).
'use strict';

module.exports = require('./ai-sdk.mjs');
