// Our implementation, plugged into the shared peer harness (../shared/bench, `--impl`).
// The adapters map the harness's synthetic shapes onto our domain code; nothing else is timed.
export const name = 'ours';
export { parseCamt, parseMt940 } from './adapters/inbound.ts';
export { convert } from './adapters/pain001.ts';
export { reconcile } from './adapters/recon.ts';
