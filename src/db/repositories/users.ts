import { and, asc, count, eq, gt } from 'drizzle-orm';
import type { CompanyScope, Executor, PlatformScope } from '../executor.ts';
import { users } from '../schema/index.ts';

export type UserRow = typeof users.$inferSelect;

export async function insertUser(q: Executor, row: typeof users.$inferInsert): Promise<UserRow> {
  const [created] = await q.insert(users).values(row).returning();
  return created!;
}

/** Credential lookup for login: the email is the identity, before any tenant is known. */
export async function findUserByEmailForLogin(q: Executor, email: string): Promise<UserRow | undefined> {
  const rows = await q.select().from(users).where(eq(users.email, email)).limit(1);
  return rows[0];
}

export async function emailTaken(q: Executor, email: string): Promise<boolean> {
  const rows = await q.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  return rows.length > 0;
}

export async function findUser(q: Executor, scope: PlatformScope, userId: string): Promise<UserRow | undefined> {
  const rows = await q
    .select()
    .from(users)
    .where(and(eq(users.platformId, scope.platformId), eq(users.id, userId)))
    .limit(1);
  return rows[0];
}

export async function listCompanyUsers(q: Executor, scope: CompanyScope): Promise<UserRow[]> {
  return q
    .select()
    .from(users)
    .where(and(eq(users.platformId, scope.platformId), eq(users.companyId, scope.companyId)))
    .orderBy(asc(users.id));
}

export async function listWorkspaceAdmins(
  q: Executor,
  scope: PlatformScope,
  after: string | undefined,
  limit: number,
): Promise<UserRow[]> {
  return q
    .select()
    .from(users)
    .where(
      and(
        eq(users.platformId, scope.platformId),
        eq(users.workspaceAdmin, true),
        after ? gt(users.id, after) : undefined,
      ),
    )
    .orderBy(asc(users.id))
    .limit(limit);
}

export async function countWorkspaceAdmins(q: Executor, scope: PlatformScope): Promise<number> {
  const [row] = await q
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.platformId, scope.platformId), eq(users.workspaceAdmin, true)));
  return row?.n ?? 0;
}

export async function setUserPassword(
  q: Executor,
  scope: PlatformScope,
  userId: string,
  passwordHash: string,
): Promise<void> {
  await q
    .update(users)
    .set({ passwordHash, status: 'active' })
    .where(and(eq(users.platformId, scope.platformId), eq(users.id, userId)));
}

/** Lookup by id when the id itself came from a redeemed credential (an invite), before any scope. */
export async function findUserById(q: Executor, userId: string): Promise<UserRow | undefined> {
  const rows = await q.select().from(users).where(eq(users.id, userId)).limit(1);
  return rows[0];
}

/** Replaces the password hash of an active user (change-password, admin reset keeps the user as is). */
export async function replacePasswordHash(
  q: Executor,
  scope: PlatformScope,
  userId: string,
  passwordHash: string | null,
): Promise<void> {
  await q
    .update(users)
    .set({ passwordHash })
    .where(and(eq(users.platformId, scope.platformId), eq(users.id, userId)));
}
