import helmet from '@fastify/helmet';
import type { FastifyPluginAsync } from 'fastify';
import type { HttpServices } from '../services.ts';
import { dashboardAssets } from './assets.ts';
import { dashboardErrorPage, registerDashboardGuard } from './guard.ts';
import { accountPages } from './pages/accounts.ts';
import { approvalPolicyPages } from './pages/approval-policies.ts';
import { approvalPages } from './pages/approvals.ts';
import { connectionPages } from './pages/connections.ts';
import { documentPages } from './pages/document.ts';
import { exceptionsPages } from './pages/exceptions.ts';
import { journalPages } from './pages/journal.ts';
import { overviewPage } from './pages/overview.ts';
import { passwordPages } from './pages/password.ts';
import { receivablesPages } from './pages/receivables.ts';
import { reconciliationPages } from './pages/reconciliation.ts';
import { sandboxPages } from './pages/sandbox.ts';
import { securityPages } from './pages/security.ts';
import { signInPages } from './pages/sign-in.ts';
import { userPages } from './pages/users.ts';
import { webhookPages } from './pages/webhooks.ts';

/**
 * The tenant dashboard at /dashboard (DESIGN.md, Dashboard): server-rendered pages over the same use
 * cases as the API, plain forms that work without JavaScript, every asset served from here.
 * Encapsulated: its security headers, guard and HTML error pages apply to its routes only.
 */
export const dashboardRoutes: FastifyPluginAsync<HttpServices> = async (app, services) => {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
    // Every page is served from here; no other origin's window needs a handle on it.
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'no-referrer' },
    hsts: services.ctx.config.publicBaseUrl.startsWith('https:') ? { maxAge: 31536000 } : false,
  });
  registerDashboardGuard(app);
  app.setErrorHandler((error, _request, reply) => dashboardErrorPage(reply, error));
  await app.register(dashboardAssets);
  await app.register(signInPages, services);
  await app.register(overviewPage, services);
  await app.register(journalPages, services);
  await app.register(documentPages, services);
  await app.register(approvalPages, services);
  await app.register(approvalPolicyPages, services);
  await app.register(reconciliationPages, services);
  await app.register(receivablesPages, services);
  await app.register(exceptionsPages, services);
  await app.register(sandboxPages, services);
  await app.register(webhookPages, services);
  await app.register(accountPages, services);
  await app.register(connectionPages, services);
  await app.register(userPages, services);
  await app.register(securityPages, services);
  await app.register(passwordPages, services);
};
