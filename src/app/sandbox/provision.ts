import { isUniqueViolation } from '../../db/errors.ts';
import { insertCompany } from '../../db/repositories/companies.ts';
import { insertConnection } from '../../db/repositories/connections.ts';
import { insertPlatform } from '../../db/repositories/platforms.ts';
import { insertUser } from '../../db/repositories/users.ts';
import { getProfile } from '../../domain/conversion/index.ts';
import { randomPassword } from '../../platform/secrets.ts';
import { recordEvent } from '../audit/record.ts';
import type { AppContext } from '../context.ts';
import { AppError, badRequest } from '../errors.ts';
import { issueApiKey } from '../identity/api-keys.ts';
import { plainText } from '../plain-text.ts';
import { firstPaymentRequest } from './first-payment.ts';

/** Banks a sandbox may be provisioned against: the demo bank, which answers like a real one. */
const DEMO_BANK_KEYS = ['demo'];

function demoBank(key: string) {
  const profile = DEMO_BANK_KEYS.includes(key) ? getProfile(key) : undefined;
  return profile ? { key: profile.key, name: profile.bankName, country: profile.countryCode } : undefined;
}

export type ProvisionInput = {
  bankKey?: string | undefined;
  companyName?: string | undefined;
  label?: string | undefined;
};

/**
 * An isolated sandbox: its own platform, company, admin user (random password), API key and an
 * active demo-bank connection in the test environment, all in one transaction.
 */
export async function provisionSandbox(ctx: AppContext, input: ProvisionInput) {
  if (!ctx.config.sandbox) throw new AppError('not_found', 'sandbox provisioning is not available here');
  const bank = demoBank(input.bankKey ?? 'demo');
  if (!bank) throw badRequest(`bankKey must be a demo bank: ${DEMO_BANK_KEYS.join(', ')}`);
  const companyName = plainText(input.companyName ?? 'Sandbox Company', 'companyName');
  const label = input.label === undefined || input.label.trim() === '' ? 'sandbox' : plainText(input.label, 'label');

  const now = ctx.clock.now();
  const platformId = ctx.ids.next('plat');
  const companyId = ctx.ids.next('comp');
  const subdomain = `sbx-${platformId.slice(-10)}`;
  const email = `admin+${subdomain}@sandbox.invalid`;
  const password = randomPassword(20);
  const passwordHash = await ctx.passwords.hash(password);

  try {
    const apiKey = await ctx.db.transaction(async (tx) => {
      await insertPlatform(tx, {
        id: platformId,
        name: `${companyName} sandbox`,
        sandbox: true,
        createdAt: now,
        lastActivityAt: now,
      });
      // Sandbox-only: a production connection for this company is refused (403 sandbox_only).
      await insertCompany(tx, { id: companyId, platformId, name: companyName, sandboxOnly: true, createdAt: now });
      // The sandbox admin is the workspace admin and an admin of its one company, so the dashboard
      // and control-plane routes work without first choosing a company context.
      await insertUser(tx, {
        id: ctx.ids.next('usr'),
        platformId,
        companyId,
        workspaceAdmin: true,
        email,
        name: 'Sandbox Admin',
        roles: ['admin'],
        status: 'active',
        passwordHash,
        createdAt: now,
      });
      const connectionId = ctx.ids.next('conn');
      await recordEvent(ctx, tx, {
        platformId,
        companyId,
        type: 'sandbox.provisioned',
        message: `sandbox provisioned with a demo-bank connection ${connectionId}`,
        metadata: { bankKey: bank.key, connectionId },
        bankKey: bank.key,
        environment: 'test',
        connectionId,
      });
      await insertConnection(tx, {
        id: connectionId,
        platformId,
        companyId,
        bankKey: bank.key,
        environment: 'test',
        status: 'active',
        createdAt: now,
      });
      return issueApiKey(ctx, tx, platformId, label);
    });
    const baseUrl = ctx.config.publicBaseUrl;
    return {
      apiKey: apiKey.key,
      companyId,
      platformId,
      baseUrl,
      subdomain,
      bank,
      dashboardLogin: { url: `${baseUrl}/dashboard`, subdomain, email, password },
      firstPayment: firstPaymentRequest({ baseUrl, apiKey: apiKey.key, companyId, bankKey: bank.key, today: now }),
    };
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('conflict', 'please retry');
    throw error;
  }
}
