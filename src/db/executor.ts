import type { Db } from './client.ts';

/** A query runner: the pool-backed database or an open transaction. Repositories accept either. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type Executor = Db | Tx;

/** Tenant scopes. Every query on tenant data takes one; there is no unscoped variant. */
export type PlatformScope = { platformId: string };
export type CompanyScope = { platformId: string; companyId: string };
