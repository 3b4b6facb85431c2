import { mod97 } from './check-digits.ts';

/**
 * Polish NRB: 26 digits = 2 check digits + 8-digit bank routing number + 16-digit account;
 * valid iff (nrb[2:] + "2521" + nrb[:2]) mod 97 == 1 ("2521" is "PL"). Spaces are allowed in print form.
 */
export function isValidNrb(nrb: string): boolean {
  const n = nrb.replace(/ /g, '');
  if (!/^\d{26}$/.test(n)) return false;
  return mod97(`${n.slice(2)}2521${n.slice(0, 2)}`) === 1;
}

/** Polish NIP (tax id): 10 digits, weights 6,5,7,2,3,4,5,6,7, sum mod 11 equals the last digit (10 never). */
export function isValidNip(nip: string): boolean {
  const n = nip.replace(/[- ]/g, '');
  if (!/^\d{10}$/.test(n)) return false;
  const weights = [6, 5, 7, 2, 3, 4, 5, 6, 7];
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (n.charCodeAt(i) - 48) * (weights[i] ?? 0);
  const check = sum % 11;
  return check !== 10 && check === n.charCodeAt(9) - 48;
}

/** Tax micro-account (mikrorachunek podatkowy): an NRB with `10100071222` at positions 3..13. */
export function isMikrorachunek(nrb: string): boolean {
  const n = nrb.replace(/ /g, '');
  return isValidNrb(n) && n.slice(2, 13) === '10100071222';
}

/** NRB out of a Polish IBAN (PLkk + 24 digits -> kk + 24 digits) or the digits of a bare NRB. */
export function nrbFromAccount(text: string): string {
  const n = text.replace(/ /g, '');
  return n.startsWith('PL') ? n.slice(2) : n;
}
