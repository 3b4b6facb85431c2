import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/**
 * Server-rendered pages (the OAuth consent flow): plain HTML forms that work without JavaScript, one
 * inline stylesheet allowed by its hash, nothing loaded from anywhere else.
 */
const STYLE = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d232b;line-height:1.45}
h1{font-size:1.35rem}ul{padding-left:1.2rem}li{margin:.35rem 0}code{background:#eef1f4;padding:0 .25rem}
label{display:block;margin:.8rem 0 .2rem}input[type=email],input[type=password],input[type=text]{width:100%;padding:.45rem;box-sizing:border-box}
.actions{display:flex;gap:.8rem;margin-top:1.4rem}button{padding:.55rem 1.2rem;font-size:1rem;cursor:pointer}
button.primary{background:#1f5fbf;color:#fff;border:0;border-radius:3px}.error{color:#a61b1b}.muted{color:#5b6570;font-size:.9rem}`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * CSP: nothing but the page's own stylesheet; forms post only here, and the decision's redirect
 * (which browsers hold to form-action) goes only to a loopback redirect URI. No framing (clickjacking
 * a consent button is the attack to fear on this page).
 */
const CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self' http://127.0.0.1:*; frame-ancestors 'none'; base-uri 'none'`;

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

export function hiddenFields(fields: Record<string, string | undefined>): string {
  return Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
}

/** Sends a whole page: `body` is HTML whose every interpolated value the caller escaped. */
export function sendPage(reply: FastifyReply, status: number, title: string, body: string): FastifyReply {
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', CSP)
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send(
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>\n<body>\n${body}\n</body></html>\n`,
    );
}
