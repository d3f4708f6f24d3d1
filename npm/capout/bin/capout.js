#!/usr/bin/env node
// The capout command of the npm package: capout of this platform's package.
'use strict';

require('./launch.js')('capout');
