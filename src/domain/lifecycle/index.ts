/**
 * The state machine of the service, in one place (issue 21): every status is a union with its values
 * listed once (the database CHECK constraints are built from these lists), one transition function
 * per state set, and exhaustive switches where a status is read. Writers ask the transition function
 * and persist only what it allows, with a conditional update on the status they read.
 */
export * from './delivery.ts';
export * from './document.ts';
export * from './line.ts';
export * from './oauth.ts';
export * from './receivables.ts';
export * from './records.ts';
export * from './transition.ts';
