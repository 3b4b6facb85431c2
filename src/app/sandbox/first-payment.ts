/**
 * A SEPA credit transfer between two Finnish IBANs with valid check digits, executed on `date`: the
 * sandbox's first payment and a connection's test payment are both this payment.
 */
export function sepaTransfer(input: {
  messageId: string;
  date: string;
  payerName: string;
  debtorBic: string;
  amount: string;
  endToEndId: string;
  paymentId: string;
  remittance: string;
}) {
  return {
    messageId: input.messageId,
    initiatingParty: { name: input.payerName },
    payments: [
      {
        paymentId: input.paymentId,
        paymentType: 'SEPA_CT',
        executionDate: input.date,
        debtor: {
          name: input.payerName,
          country: 'FI',
          account: { iban: 'FI2112345600000785', currency: 'EUR' },
          agent: { bic: input.debtorBic },
        },
        transactions: [
          {
            endToEndId: input.endToEndId,
            amount: input.amount,
            currency: 'EUR',
            creditor: {
              name: 'Example Supplier Oy',
              country: 'FI',
              account: { iban: 'FI5542345670000081' },
              agent: { bic: 'OKOYFIHH' },
            },
            remittance: { unstructured: input.remittance },
          },
        ],
      },
    ],
  };
}

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
      payment: sepaTransfer({
        messageId,
        date,
        payerName: 'Sandbox Company',
        debtorBic: 'NDEAFIHH',
        amount: '125.50',
        endToEndId: 'E2E-0001',
        paymentId: 'PMT-0001',
        remittance: 'Invoice 1001',
      }),
    },
  };
}
