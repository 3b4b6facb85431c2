import { type Html, html } from './html.ts';

/** An instant as the dashboard shows it: UTC, to the minute (the ISO value on hover). */
export function when(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">–</span>`;
  const text = `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  return html`<time datetime="${iso}">${text}</time>`;
}

/** A status word as a badge (its class colours it; the word itself carries the meaning). */
export function badge(status: string | null | undefined): Html {
  if (!status) return html`<span class="muted">–</span>`;
  return html`<span class="status ${status}">${status}</span>`;
}

/** Amounts per currency, as the journal keeps them (decimal strings, never floats). */
export function totals(list: readonly { currency: string; amount: string }[] | null | undefined): Html {
  if (!list || list.length === 0) return html`<span class="muted">–</span>`;
  return html`${list.map((t, i) => html`${i > 0 ? ', ' : ''}${t.amount} ${t.currency}`)}`;
}

/** The text of a query parameter (the first value when sent twice). */
export function param(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first !== '' ? first : undefined;
}
