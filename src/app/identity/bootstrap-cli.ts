import { insertPlatform } from '../../db/repositories/platforms.ts';
import { recordEvent } from '../audit/record.ts';
import { AppError } from '../errors.ts';
import { type AdminContext, addWorkspaceAdmin } from './admins.ts';
import { checkName } from './validation.ts';

type CommandResult = { stdout?: string; stderr?: string; exitCode: number };

/**
 * Offline bootstrap of a deployment that is not a sandbox (DESIGN.md, Identity): the operator makes
 * a platform, then its first workspace admin, on the server's database, before anyone can sign in.
 */
export async function createPlatformCommand(ctx: AdminContext, args: string[]): Promise<CommandResult> {
  const name = args.join(' ').trim();
  if (name === '') return { stderr: 'usage: cli create-platform <name>\n', exitCode: 2 };
  let checked: string;
  try {
    checked = checkName(name);
  } catch (error) {
    if (error instanceof AppError) return { stderr: `${error.message}\n`, exitCode: 1 };
    throw error;
  }
  const now = ctx.clock.now();
  const platformId = ctx.ids.next('plat');
  await ctx.db.transaction(async (tx) => {
    await insertPlatform(tx, { id: platformId, name: checked, sandbox: false, createdAt: now, lastActivityAt: now });
    await recordEvent(ctx, tx, {
      platformId,
      type: 'platform.created',
      message: `platform ${platformId} created (operator command)`,
      actorUserId: null,
      metadata: { via: 'cli' },
    });
  });
  return { stdout: `${platformId}\n`, exitCode: 0 };
}

/** `create-admin <platformId> <email> <name...>` with the password read from standard input (never an argument). */
export async function createAdminCommand(
  ctx: AdminContext,
  args: string[],
  readPassword: () => Promise<string>,
): Promise<CommandResult> {
  const [platformId, email, ...nameParts] = args;
  const name = nameParts.join(' ');
  if (!platformId || !email || name.trim() === '') {
    return {
      stderr: 'usage: cli create-admin <platformId> <email> <name>   (password on standard input)\n',
      exitCode: 2,
    };
  }
  const password = (await readPassword()).replace(/\r?\n$/, '');
  try {
    const admin = await addWorkspaceAdmin(
      ctx,
      platformId,
      { email, name, password },
      {
        bootstrap: false,
        actorUserId: null,
        via: 'cli',
      },
    );
    return { stdout: `${admin.id} ${admin.email}\n`, exitCode: 0 };
  } catch (error) {
    if (error instanceof AppError) return { stderr: `${error.message}\n`, exitCode: error.status === 404 ? 2 : 1 };
    throw error;
  }
}
