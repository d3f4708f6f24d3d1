#!/usr/bin/env node
// The capout-mcp command of the npm package: capout-mcp of this platform's package.
'use strict';

require('./launch.js')('capout-mcp');
