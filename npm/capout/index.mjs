// The ES module face of index.js: the same native module, loaded once.
import capout from './index.js';

export const { Capper, cap, Tools, toolDescriptions, bashStopper, bashStop } = capout;
export default capout;
