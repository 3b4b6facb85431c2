import { and, arrayContains, asc, count, eq, gt, ne } from 'drizzle-orm';
import type { CompanyScope, Executor, PlatformScope } from '../executor.ts';
import { companies, users } from '../schema/index.ts';

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

/** The company's users; erased users are left out (their rows only keep audit references resolvable). */
export async function listCompanyUsers(q: Executor, scope: CompanyScope): Promise<UserRow[]> {
  return q
    .select()
    .from(users)
    .where(
      and(eq(users.platformId, scope.platformId), eq(users.companyId, scope.companyId), ne(users.status, 'erased')),
    )
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

/**
 * Locks the company's row until the transaction ends: user changes that could remove its last admin
 * take this lock first, so two of them at once are decided one after the other.
 */
export async function lockCompanyForUserChange(tx: Executor, scope: CompanyScope): Promise<boolean> {
  const rows = await tx
    .select({ id: companies.id })
    .from(companies)
    .where(and(eq(companies.platformId, scope.platformId), eq(companies.id, scope.companyId)))
    .for('update');
  return rows.length > 0;
}

/** A user of the company (not erased), locked for the caller's transaction. */
export async function lockCompanyUser(tx: Executor, scope: CompanyScope, userId: string): Promise<UserRow | undefined> {
  const rows = await tx
    .select()
    .from(users)
    .where(
      and(
        eq(users.platformId, scope.platformId),
        eq(users.companyId, scope.companyId),
        eq(users.id, userId),
        ne(users.status, 'erased'),
      ),
    )
    .for('update');
  return rows[0];
}

/** Admins of the company other than `exceptUserId` (erased users hold no role). */
export async function countOtherCompanyAdmins(q: Executor, scope: CompanyScope, exceptUserId: string): Promise<number> {
  const [row] = await q
    .select({ n: count() })
    .from(users)
    .where(
      and(
        eq(users.platformId, scope.platformId),
        eq(users.companyId, scope.companyId),
        ne(users.id, exceptUserId),
        ne(users.status, 'erased'),
        arrayContains(users.roles, ['admin']),
      ),
    );
  return row?.n ?? 0;
}

export async function updateCompanyUser(
  q: Executor,
  scope: CompanyScope,
  userId: string,
  patch: { roles?: string[]; name?: string },
): Promise<UserRow | undefined> {
  const [row] = await q
    .update(users)
    .set(patch)
    .where(and(eq(users.platformId, scope.platformId), eq(users.companyId, scope.companyId), eq(users.id, userId)))
    .returning();
  return row;
}

/**
 * Erasure (DESIGN.md): name and email replaced, password and roles removed, status erased. The row
 * and its id stay, so audit events that name the id still resolve to "an erased user".
 */
export async function eraseCompanyUser(q: Executor, scope: CompanyScope, userId: string): Promise<boolean> {
  const rows = await q
    .update(users)
    .set({
      name: 'Erased user',
      email: `erased+${userId}@invalid`,
      passwordHash: null,
      roles: [],
      status: 'erased',
    })
    .where(
      and(
        eq(users.platformId, scope.platformId),
        eq(users.companyId, scope.companyId),
        eq(users.id, userId),
        ne(users.status, 'erased'),
      ),
    )
    .returning({ id: users.id });
  return rows.length > 0;
}
