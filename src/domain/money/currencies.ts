/**
 * ISO 4217 active currency codes with their minor-unit exponent.
 * Most currencies have two decimals; the exceptions are listed explicitly so the table stays readable.
 */
const TWO_DECIMALS =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VES WST XCD XCG YER ZAR ZMW ZWG';
const ZERO_DECIMALS = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
const THREE_DECIMALS = 'BHD IQD JOD KWD LYD OMR TND';
const FOUR_DECIMALS = 'CLF UYW';

const EXPONENTS: ReadonlyMap<string, number> = new Map([
  ...TWO_DECIMALS.split(' ').map((c) => [c, 2] as const),
  ...ZERO_DECIMALS.split(' ').map((c) => [c, 0] as const),
  ...THREE_DECIMALS.split(' ').map((c) => [c, 3] as const),
  ...FOUR_DECIMALS.split(' ').map((c) => [c, 4] as const),
]);

/** Minor-unit exponent of an ISO 4217 code, or undefined for an unknown code. */
export function currencyExponent(code: string): number | undefined {
  return EXPONENTS.get(code);
}
