import type { Executor } from '../../db/executor.ts';
import { findCompanyPlatform } from '../../db/repositories/companies.ts';
import { verifyCompanyChain } from './verify.ts';

type CommandResult = { stdout?: string; stderr?: string; exitCode: number };

/**
 * `cli verify-audit <companyId>`: OK with the number of events checked (exit 0), or the first broken
 * link with its seq, event id and reason (exit 1); 2 for usage or an unknown company.
 */
export async function verifyAuditCommand(q: Executor, args: string[]): Promise<CommandResult> {
  const [companyId, ...rest] = args;
  if (!companyId || rest.length > 0) return { stderr: 'usage: cli verify-audit <companyId>\n', exitCode: 2 };
  const platformId = await findCompanyPlatform(q, companyId);
  if (platformId === undefined) return { stderr: `unknown company ${companyId}\n`, exitCode: 2 };
  const verdict = await verifyCompanyChain(q, { platformId, companyId });
  if (verdict.ok) {
    const range = verdict.firstSeq === null ? '' : ` (seq ${verdict.firstSeq}..${verdict.lastSeq})`;
    return { stdout: `OK ${verdict.checked} events verified for ${companyId}${range}\n`, exitCode: 0 };
  }
  return {
    stdout: `BROKEN at seq ${verdict.brokenAtSeq}, event ${verdict.eventId}: ${verdict.reason} (${verdict.checked} events verified before it)\n`,
    exitCode: 1,
  };
}
