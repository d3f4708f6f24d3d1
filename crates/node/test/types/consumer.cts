// The same from CommonJS.
import capout = require('capout');
import aiSdk = require('capout/ai-sdk');

export const text: string = capout.cap('x', { tailChars: 1 });
export const bash = aiSdk.bashTool({ root: '.' });
