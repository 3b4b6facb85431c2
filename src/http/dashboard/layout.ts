import type { FastifyReply } from 'fastify';
import type { CompanyNames, Workspace } from '../../app/dashboard/workspace.ts';
import type { SessionPrincipal } from '../../app/identity/principal.ts';
import { type Html, html } from './html.ts';

/** What every signed-in page is drawn with. */
export type DashboardView = {
  session: SessionPrincipal;
  csrf: string;
  workspace: Workspace;
  sandbox: boolean;
};

const NAV: { path: string; label: string; key: string; when?: (v: DashboardView) => boolean }[] = [
  { path: '/dashboard', label: 'Overview', key: 'overview' },
  { path: '/dashboard/journal', label: 'Journal', key: 'journal' },
  { path: '/dashboard/approvals', label: 'Approvals', key: 'approvals' },
  { path: '/dashboard/reconciliation', label: 'Reconciliation', key: 'reconciliation' },
  { path: '/dashboard/receivables', label: 'Receivables', key: 'receivables' },
  { path: '/dashboard/exceptions', label: 'Exceptions', key: 'exceptions' },
  { path: '/dashboard/accounts', label: 'Accounts', key: 'accounts' },
  { path: '/dashboard/webhooks', label: 'Webhooks', key: 'webhooks', when: (v) => v.workspace.admin },
  { path: '/dashboard/users', label: 'Users and API keys', key: 'users' },
  { path: '/dashboard/connections', label: 'Bank connections', key: 'connections', when: (v) => v.workspace.admin },
  { path: '/dashboard/security', label: 'Security', key: 'security' },
  { path: '/dashboard/sandbox', label: 'Sandbox', key: 'sandbox', when: (v) => v.sandbox && v.workspace.admin },
];

/** The CSRF field every state-changing form carries (checked by the guard before the handler runs). */
export function csrfField(view: { csrf: string }): Html {
  return html`<input type="hidden" name="csrf_token" value="${view.csrf}">`;
}

function switcher(view: DashboardView, names: CompanyNames): Html {
  if (!view.session.user.workspaceAdmin || names.choices.length === 0) {
    return html`<span class="company">${names.current ?? 'No company'}</span>`;
  }
  const options = names.choices.map(
    (c) => html`<option value="${c.id}"${c.id === view.workspace.companyId ? html` selected` : ''}>${c.name}</option>`,
  );
  return html`<form method="post" action="/dashboard/company" class="switcher">${csrfField(view)}
<label for="company-switch">Company</label>
<select id="company-switch" name="companyId">${options}</select>
<button type="submit">Switch</button></form>`;
}

function header(view: DashboardView, names: CompanyNames, active: string): Html {
  const links = NAV.filter((n) => !n.when || n.when(view)).map(
    (n) => html`<li><a href="${n.path}"${n.key === active ? html` aria-current="page"` : ''}>${n.label}</a></li>`,
  );
  return html`<header class="top">
<a class="brand" href="/dashboard">payops</a>
${switcher(view, names)}
<span class="who">${view.session.user.email}</span>
<form method="post" action="/dashboard/sign-out" class="sign-out">${csrfField(view)}<button type="submit">Sign out</button></form>
</header>
<nav aria-label="Dashboard"><ul>${links}</ul></nav>`;
}

export type Notice = { kind: 'ok' | 'error'; text: string };

function notices(list: readonly Notice[]): Html {
  return html`${list.map(
    (n) => html`<p class="notice ${n.kind}" role="${n.kind === 'error' ? 'alert' : 'status'}">${n.text}</p>`,
  )}`;
}

function documentShell(title: string, body: Html, head: Html = html``): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · payops</title>
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml">
${head}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${body}
</body></html>
`.value;
}

function send(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(text);
}

/** A signed-in page: header, navigation, the page's notices and body. */
export async function sendDashboardPage(
  reply: FastifyReply,
  view: DashboardView,
  page: {
    title: string;
    active: string;
    body: Html;
    status?: number;
    notices?: readonly Notice[];
    /** Scripts and stylesheets of this page (served from /dashboard/assets). */
    scripts?: string[];
    styles?: string[];
    /** Reload the page every so many seconds (a payment on its way), without JavaScript. */
    refreshSeconds?: number;
  },
): Promise<FastifyReply> {
  const names = await view.workspace.names;
  const scripts = (page.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`);
  const head = html`${(page.styles ?? []).map((href) => html`<link rel="stylesheet" href="${href}">`)}${
    page.refreshSeconds ? html`<meta http-equiv="refresh" content="${page.refreshSeconds}">` : ''
  }`;
  const body = html`${header(view, names, page.active)}
<main id="main">
<h1>${page.title}</h1>
${notices(page.notices ?? [])}
${page.body}
</main>
${scripts}`;
  return send(reply, page.status ?? 200, documentShell(page.title, body, head));
}

/** A page outside the signed-in frame (sign-in, errors before a session). */
export function sendPlainPage(reply: FastifyReply, status: number, title: string, body: Html): FastifyReply {
  return send(reply, status, documentShell(title, html`<main id="main" class="narrow">${body}</main>`));
}
