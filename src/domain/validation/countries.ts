/** ISO 3166-1 alpha-2 codes (officially assigned), plus XK which banks use for Kosovo. */
const CODES =
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
  'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
  'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
  'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
  'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW XK';

/**
 * The index of a string's first two characters in a 26 x 26 table when both are capital letters A-Z, else
 * -1: tables keyed by a country (country codes, IBAN specs, the writer's per-country pieces) are indexed
 * by it instead of hashing the string, once per transaction on the conversion hot path.
 */
export function letterPair(v: string): number {
  const a = v.charCodeAt(0) - 65;
  const b = v.charCodeAt(1) - 65;
  return a >= 0 && a < 26 && b >= 0 && b < 26 ? a * 26 + b : -1;
}

/** The codes as flags indexed by letterPair. */
const COUNTRIES = new Uint8Array(26 * 26);
for (const code of CODES.split(' ')) COUNTRIES[letterPair(code)] = 1;

export function isCountryCode(code: string): boolean {
  if (code.length !== 2) return false;
  const slot = letterPair(code);
  return slot >= 0 && COUNTRIES[slot] === 1;
}
