import type { listCompanyConnections } from '../../../app/connections/connections.ts';
import { badge } from '../format.ts';
import { type Html, html } from '../html.ts';
import { csrfField, type DashboardView } from '../layout.ts';

type Connection = Awaited<ReturnType<typeof listCompanyConnections>>['items'][number];
type Hashes = { authentication: string; encryption: string };
type Ebics = {
  state: string;
  hostId: string | null;
  partnerId: string | null;
  userId: string | null;
  bankKeyHashes: Hashes | null;
  reason: string | null;
};

/** The onboarding steps of an EBICS connection (DESIGN.md, EBICS 3.0), in order, and which one each state is at. */
const STEPS = ['Keys sent', 'Letter awaiting the bank', 'Bank keys to confirm', 'Active'] as const;
const AT: Record<string, number> = {
  new: -1,
  suspended: -1,
  'awaiting-bank': 1,
  'confirm-bank-keys': 2,
  'bank-keys-changed': 2,
  active: 3,
};

const action = (id: string, name: string) => `/dashboard/connections/${encodeURIComponent(id)}/${name}`;
/** Hex pairs, as the bank prints them in its letter. */
const pairs = (hex: string) => hex.match(/../g)?.join(' ') ?? hex;

function steps(at: number): Html {
  const items = STEPS.map((label, i) => {
    const state = i < at || (i === at && i === STEPS.length - 1) ? 'done' : i === at ? 'current' : 'to do';
    return html`<li${i === at ? html` aria-current="step"` : ''}>${label} <span class="muted">(${state})</span></li>`;
  });
  return html`<ol class="steps" aria-label="EBICS onboarding">${items}</ol>`;
}

function initForm(view: DashboardView, c: Connection, ebics: Ebics, hints: Record<string, unknown>): Html {
  const value = (name: 'hostId' | 'partnerId' | 'userId') => String(hints[name] ?? ebics[name] ?? '');
  const field = (name: 'hostId' | 'partnerId' | 'userId', label: string) =>
    html`<label for="${`${c.id}-${name}`}">${label}</label>
<input id="${`${c.id}-${name}`}" name="${name}" type="text" autocomplete="off" required value="${value(name)}">`;
  return html`<form method="post" action="${action(c.id, 'ebics-init')}" class="stack">${csrfField(view)}
<p>Send the subscriber's keys (INI and HIA) with the ids of the EBICS contract${hints['hostId'] ? ': the sandbox bank simulator set up the values filled in' : ''}.</p>
${field('hostId', 'Host id')}${field('partnerId', 'Partner id')}${field('userId', 'User id')}
<div class="actions"><button type="submit" class="primary">Send the keys</button></div></form>`;
}

function awaitingBank(view: DashboardView, c: Connection): Html {
  return html`<p>Print the <a href="${action(c.id, 'ebics-letter')}">initialisation letter</a>, sign it and send it to the bank. Once the bank has accepted it, fetch its keys.</p>
<form method="post" action="${action(c.id, 'ebics-bank-keys')}" class="inline">${csrfField(view)}<button type="submit" class="primary">Fetch the bank keys (HPB)</button></form>`;
}

function confirmForm(view: DashboardView, c: Connection, ebics: Ebics, published: Hashes | undefined): Html {
  if (!ebics.bankKeyHashes) return html``;
  const field = (name: 'authenticationHash' | 'encryptionHash', label: string, prefill: string | undefined) =>
    html`<label for="${`${c.id}-${name}`}">${label}</label>
<input id="${`${c.id}-${name}`}" name="${name}" type="text" autocomplete="off" required spellcheck="false" value="${prefill ?? ''}">`;
  return html`<p>HPB received these bank keys (SHA-256 of each certificate):</p>
<dl class="facts"><dt>Authentication (X002)</dt><dd><code>${pairs(ebics.bankKeyHashes.authentication)}</code></dd>
<dt>Encryption (E002)</dt><dd><code>${pairs(ebics.bankKeyHashes.encryption)}</code></dd></dl>
<form method="post" action="${action(c.id, 'ebics-confirm')}" class="stack">${csrfField(view)}
<p>Type the hashes the bank published (its letter or its website)${published ? ': the sandbox bank simulator published the values filled in' : ''}; only equal hashes activate the connection.</p>
${field('authenticationHash', 'Authentication key hash', published ? pairs(published.authentication) : undefined)}
${field('encryptionHash', 'Encryption key hash', published ? pairs(published.encryption) : undefined)}
<div class="actions"><button type="submit" class="primary">Confirm the bank keys</button></div></form>`;
}

/**
 * An EBICS connection's onboarding on the Bank connections page: where it stands among the four
 * steps, why it is not ready (a bank key change), and the form of its next step (send the keys,
 * the letter and HPB, confirm the bank's hashes). In a sandbox the forms are filled with what the
 * bank simulator set up and published, so it is onboarded from the page alone.
 */
export function ebicsPanel(view: DashboardView, c: Connection): Html {
  const ebics = c.readiness['ebics'] as Ebics | undefined;
  if (c.channel !== 'EBICS' || !ebics) return html``;
  const hints = (c.readiness['sandboxActivation'] ?? {}) as Record<string, unknown>;
  const published = hints['bankKeyHashes'] as Hashes | undefined;
  const at = AT[ebics.state] ?? -1;
  const next =
    ebics.state === 'new' || ebics.state === 'suspended'
      ? initForm(view, c, ebics, hints)
      : ebics.state === 'awaiting-bank'
        ? awaitingBank(view, c)
        : ebics.state === 'confirm-bank-keys'
          ? confirmForm(view, c, ebics, published)
          : ebics.state === 'bank-keys-changed'
            ? // HPB ran when the change was noticed; if it failed, it is run again from here.
              html`${confirmForm(view, c, ebics, published)}<form method="post" action="${action(c.id, 'ebics-bank-keys')}" class="inline">${csrfField(view)}<button type="submit">Fetch the bank keys again (HPB)</button></form>`
            : html``;
  return html`<h3>EBICS onboarding ${badge(ebics.state)}</h3>${steps(at)}
${ebics.reason ? html`<p class="notice error" role="status">Not ready: ${ebics.reason}</p>` : ''}${next}`;
}
