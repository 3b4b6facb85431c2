export * from './connections.ts';
export * from './identity.ts';
