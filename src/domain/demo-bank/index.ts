/**
 * The demo bank (sandbox): given a delivered pain.001, the real files a bank would answer with.
 * Pure: ids and times come in; the same input always gives the same bytes.
 */
export { demoCamt053 } from './camt053.ts';
export { deliveredFileOf } from './delivered-file.ts';
export { demoPain002 } from './pain002.ts';
export { deliveredFileFromPain001 } from './read-pain001.ts';
export type { DeliveredFile } from './types.ts';
