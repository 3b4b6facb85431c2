export * from './connections.ts';
export * from './conversion-jobs.ts';
export * from './identity.ts';
