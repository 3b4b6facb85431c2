/**
 * A complete, valid POST /journal/payments request to the demo bank, ready to paste: a SEPA credit
 * transfer of 125.50 EUR between two IBANs with valid check digits, executed today.
 */
export function firstPaymentRequest(input: {
  baseUrl: string;
  apiKey: string;
  companyId: string;
  bankKey: string;
  today: Date;
}) {
  const date = input.today.toISOString().slice(0, 10);
  const messageId = `SANDBOX-${date.replaceAll('-', '')}-0001`;
  return {
    method: 'POST',
    url: `${input.baseUrl}/journal/payments`,
    headers: {
      'Content-Type': 'application/json',
      'X-API-Key': input.apiKey,
      'Idempotency-Key': messageId,
    },
    body: {
      companyId: input.companyId,
      bankKey: input.bankKey,
      environment: 'test',
      payment: {
        messageId,
        initiatingParty: { name: 'Sandbox Company' },
        payments: [
          {
            paymentId: 'PMT-0001',
            paymentType: 'SEPA_CT',
            executionDate: date,
            debtor: {
              name: 'Sandbox Company',
              country: 'FI',
              account: { iban: 'FI2112345600000785', currency: 'EUR' },
              agent: { bic: 'NDEAFIHH' },
            },
            transactions: [
              {
                endToEndId: 'E2E-0001',
                amount: '125.50',
                currency: 'EUR',
                creditor: {
                  name: 'Example Supplier Oy',
                  country: 'FI',
                  account: { iban: 'FI5542345670000081' },
                  agent: { bic: 'OKOYFIHH' },
                },
                remittance: { unstructured: 'Invoice 1001' },
              },
            ],
          },
        ],
      },
    },
  };
}
