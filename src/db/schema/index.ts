export * from './accounts.ts';
export * from './approvals.ts';
export * from './billing.ts';
export * from './connections.ts';
export * from './conversion-jobs.ts';
export * from './identity.ts';
export * from './journal.ts';
export * from './outbox.ts';
