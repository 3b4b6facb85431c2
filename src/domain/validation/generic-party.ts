import type { Party } from '../canonical/types.ts';
import { currencyExponent } from '../money/currencies.ts';
import { isSepaText } from './charset.ts';
import { isCountryCode } from './countries.ts';
import {
  MAX_ADDRESS_LINE,
  MAX_BUILDING,
  MAX_ID,
  MAX_NAME,
  MAX_POST_CODE,
  MAX_STREET,
  MAX_SUBDIVISION,
  MAX_TOWN,
} from './field-rules.ts';
import { isBicShape } from './formats.ts';
import type { GenericCtx } from './generic-context.ts';
import { isValidIban } from './iban.ts';
import { checkLength, join } from './text-rules.ts';

/** Generic checks of a party (name, address, identifiers, account, agent) and of identifier-like fields. */

export function checkCountry(ctx: GenericCtx, value: string | undefined, base: string, key: string, prefix = ''): void {
  if (value !== undefined && !isCountryCode(value)) {
    ctx.sink.add(
      'generic',
      'invalid_country',
      join(base, prefix + key),
      `not an ISO 3166 country code: ${JSON.stringify(value)}`,
    );
  }
}

/**
 * A party at `base` + `prefix` (`payments[0].transactions[3]` + `creditor.`): keys are constants and the
 * path is only assembled when an issue is raised, so a clean party allocates nothing here.
 */
export function checkParty(ctx: GenericCtx, party: Party, base: string, prefix: string, withAccount: boolean): void {
  const sink = ctx.sink;
  if (party.name !== undefined) checkLength(sink, party.name, ctx.nameMax, base, 'name', prefix);
  checkCountry(ctx, party.country, base, 'country', prefix);
  const a = party.postalAddress;
  if (a) {
    if (a.streetName !== undefined)
      checkLength(sink, a.streetName, MAX_STREET, base, 'postalAddress.streetName', prefix);
    if (a.buildingNumber !== undefined)
      checkLength(sink, a.buildingNumber, MAX_BUILDING, base, 'postalAddress.buildingNumber', prefix);
    if (a.postCode !== undefined) checkLength(sink, a.postCode, MAX_POST_CODE, base, 'postalAddress.postCode', prefix);
    if (a.townName !== undefined) checkLength(sink, a.townName, MAX_TOWN, base, 'postalAddress.townName', prefix);
    if (a.countrySubDivision !== undefined) {
      checkLength(sink, a.countrySubDivision, MAX_SUBDIVISION, base, 'postalAddress.countrySubDivision', prefix);
    }
    const lines = a.addressLines;
    if (lines) {
      if (lines.length > 7)
        sink.add('generic', 'too_long', join(base, `${prefix}postalAddress.addressLines`), 'at most 7 address lines');
      for (let i = 0; i < lines.length; i++) {
        checkLength(sink, lines[i] ?? '', MAX_ADDRESS_LINE, base, `postalAddress.addressLines[${i}]`, prefix);
      }
    }
  }
  const org = party.organisationId;
  if (org) {
    if (org.id !== undefined) checkIdentifierLike(ctx, org.id, MAX_ID, base, 'organisationId.id', prefix);
    if (org.scheme !== undefined) checkLength(sink, org.scheme, MAX_ID, base, 'organisationId.scheme', prefix);
    if (org.issuer !== undefined) checkIdentifierLike(ctx, org.issuer, MAX_ID, base, 'organisationId.issuer', prefix);
  }
  if (!withAccount) return;
  const account = party.account;
  if (account) {
    // The normaliser already turned print form (spaces, lower case) into electronic form.
    if (account.iban !== undefined && !isValidIban(account.iban)) {
      sink.add(
        'generic',
        'invalid_iban',
        join(base, `${prefix}account.iban`),
        'IBAN fails its country length or mod-97 check',
      );
    }
    if (account.currency !== undefined && currencyExponent(account.currency) === undefined) {
      sink.add(
        'generic',
        'invalid_currency',
        join(base, `${prefix}account.currency`),
        `unknown currency ${account.currency}`,
      );
    }
    const other = account.other;
    if (other) {
      if (other.id !== undefined) checkIdentifierLike(ctx, other.id, 34, base, 'account.other.id', prefix);
      if (other.scheme !== undefined) checkLength(sink, other.scheme, MAX_ID, base, 'account.other.scheme', prefix);
      if (other.issuer !== undefined)
        checkIdentifierLike(ctx, other.issuer, MAX_ID, base, 'account.other.issuer', prefix);
    }
  }
  const agent = party.agent;
  if (agent) {
    if (agent.bic !== undefined && !isBicShape(agent.bic)) {
      sink.add('generic', 'invalid_bic', join(base, `${prefix}agent.bic`), `not a BIC: ${JSON.stringify(agent.bic)}`);
    }
    if (agent.name !== undefined) checkLength(sink, agent.name, MAX_NAME, base, 'agent.name', prefix);
    checkCountry(ctx, agent.country, base, 'agent.country', prefix);
    const c = agent.clearing;
    if (c) {
      if (c.memberId !== undefined)
        checkIdentifierLike(ctx, c.memberId, MAX_ID, base, 'agent.clearing.memberId', prefix);
      if (c.systemCode !== undefined && !/^[A-Z]{5}$/.test(c.systemCode)) {
        sink.add(
          'generic',
          'invalid_code',
          join(base, `${prefix}agent.clearing.systemCode`),
          'clearing system codes are 5 capital letters',
        );
      }
    }
  }
}

/** References and ids other than the four message ids: SEPA set, given length. */
export function checkIdentifierLike(
  ctx: GenericCtx,
  value: string,
  max: number,
  base: string,
  key: string,
  prefix = '',
): void {
  if (value === '') {
    ctx.sink.add('generic', 'required', join(base, prefix + key), 'must not be empty');
    return;
  }
  checkLength(ctx.sink, value, max, base, key, prefix);
  // Identifiers are matched by the bank and by reconciliation: never transliterate them.
  if (!isSepaText(value)) {
    ctx.sink.add(
      'generic',
      'invalid_charset',
      join(base, prefix + key),
      'identifiers must stay in the SEPA character set',
    );
  }
}
