/**
 * Bundled indicative EUR reference rates (units of currency per 1 EUR), used until a configured
 * source (FX_RATES_URL) has been read. Indicative only: never used to convert a payment.
 */
export const FX_SNAPSHOT = {
  base: 'EUR',
  asOf: '2026-11-20',
  rates: {
    EUR: 1,
    USD: 1.0842,
    GBP: 0.8457,
    CHF: 0.9391,
    SEK: 11.482,
    NOK: 11.734,
    DKK: 7.4594,
    PLN: 4.2965,
    CZK: 25.118,
    HUF: 404.62,
    RON: 4.9765,
    ISK: 149.3,
    JPY: 164.21,
    CAD: 1.5163,
    AUD: 1.6672,
  } as Record<string, number>,
};
