import type autocannon from 'autocannon';

export type SubmitTenant = { apiKey: string; body: unknown };

/**
 * autocannon's request list for POST /journal/payments: every request its own Idempotency-Key and
 * payment.messageId (so each journals a new document), the tenants taken in turn. The load generator
 * shares the 2 cores: each body is a string template with the message id spliced in, not a JSON
 * parse and stringify per request.
 */
export function submitRequests(tenants: SubmitTenant[], keyPrefix: string): autocannon.Request[] {
  let n = 0;
  const MARK = 'BENCH-MESSAGE-ID';
  const templates = tenants.map((t) => {
    const body = structuredClone(t.body) as { payment: { messageId: string } };
    body.payment.messageId = MARK;
    return JSON.stringify(body).split(JSON.stringify(MARK));
  });
  return [
    {
      method: 'POST',
      setupRequest: (req) => {
        n++;
        const key = `BENCH-${keyPrefix}-${n}`;
        const tenant = n % tenants.length;
        const [head, tail] = templates[tenant]!;
        return {
          ...req,
          headers: {
            'content-type': 'application/json',
            'x-api-key': tenants[tenant]!.apiKey,
            'idempotency-key': key,
          },
          body: `${head}${JSON.stringify(key)}${tail}`,
        };
      },
    },
  ];
}
