import type autocannon from 'autocannon';

export type SubmitTenant = { apiKey: string; body: unknown };

type SubmitBody = {
  payment: { messageId: string; payments?: Array<{ transactions?: Array<{ endToEndId?: string }> }> };
};

/**
 * autocannon's request list for POST /journal/payments: every request its own Idempotency-Key, and
 * that key as its payment.messageId and as the end-to-end id of its transactions (so each journals a
 * new document, and the bank's answers name each payment apart, as a company's own ids do: with one
 * end-to-end id for all, every statement entry would name every open line, and reconciliation would
 * record the ambiguity on all of them), the tenants taken in turn. The load generator shares the 2
 * cores: each body is a string template with the key spliced in, not a JSON parse and stringify per
 * request.
 */
export function submitRequests(tenants: SubmitTenant[], keyPrefix: string): autocannon.Request[] {
  let n = 0;
  const MARK = 'BENCH-SUBMIT-KEY';
  const templates = tenants.map((t) => {
    const body = structuredClone(t.body) as SubmitBody;
    body.payment.messageId = MARK;
    for (const payment of body.payment.payments ?? [])
      for (const transaction of payment.transactions ?? []) transaction.endToEndId = MARK;
    return JSON.stringify(body).split(JSON.stringify(MARK));
  });
  return [
    {
      method: 'POST',
      setupRequest: (req) => {
        n++;
        const key = `BENCH-${keyPrefix}-${n}`;
        const tenant = n % tenants.length;
        const parts = templates[tenant]!;
        return {
          ...req,
          headers: {
            'content-type': 'application/json',
            'x-api-key': tenants[tenant]!.apiKey,
            'idempotency-key': key,
          },
          body: parts.join(JSON.stringify(key)),
        };
      },
    },
  ];
}
