import {
  MAX_ADDRESS_LINE,
  MAX_BUILDING,
  MAX_NAME,
  MAX_POST_CODE,
  MAX_STREET,
  MAX_SUBDIVISION,
  MAX_TOWN,
} from '../validation/field-rules.ts';
import type { Ctx, PartyRels } from './normalise-fields.ts';
import {
  ACCOUNT_KEYS,
  ADDRESS_KEYS,
  AGENT_KEYS,
  arr,
  CLEARING_KEYS,
  iban,
  ORG_KEYS,
  OTHER_KEYS,
  obj,
  PARTY_KEYS,
  str,
  txt,
  unknownKeys,
} from './normalise-fields.ts';
import type { Account, Agent, Clearing, OrganisationId, OtherAccount, Party, PostalAddress } from './types.ts';

// Each builder below returns the input object itself when it is already canonical (known keys, right
// types, nothing transliterated): the common case then allocates nothing and keeps no second copy of a
// large batch alive. Otherwise it returns a fresh object; the caller's object is never modified.

export function orgId(v: unknown, base: string, rel: string, ctx: Ctx): OrganisationId | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, ORG_KEYS, base, rel, ctx);
  const id = str(o['id'], base, rel, 'id', ctx);
  const scheme = str(o['scheme'], base, rel, 'scheme', ctx);
  const issuer = str(o['issuer'], base, rel, 'issuer', ctx);
  if (clean && id === o['id'] && scheme === o['scheme'] && issuer === o['issuer']) return o as OrganisationId;
  const r: OrganisationId = {};
  if (id !== undefined) r.id = id;
  if (scheme !== undefined) r.scheme = scheme;
  if (issuer !== undefined) r.issuer = issuer;
  return r;
}

function address(v: unknown, base: string, rel: string, ctx: Ctx): PostalAddress | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  let clean = unknownKeys(o, ADDRESS_KEYS, base, rel, ctx);
  const streetName = txt(o['streetName'], base, rel, 'streetName', ctx, MAX_STREET);
  const buildingNumber = txt(o['buildingNumber'], base, rel, 'buildingNumber', ctx, MAX_BUILDING);
  const postCode = txt(o['postCode'], base, rel, 'postCode', ctx, MAX_POST_CODE);
  const townName = txt(o['townName'], base, rel, 'townName', ctx, MAX_TOWN);
  const sub = txt(o['countrySubDivision'], base, rel, 'countrySubDivision', ctx, MAX_SUBDIVISION);
  const rawLines = o['addressLines'];
  let lines: string[] | undefined;
  const arrLines = arr(rawLines, base, rel, 'addressLines', ctx);
  if (arrLines) {
    lines = [];
    let same = true;
    for (let i = 0; i < arrLines.length; i++) {
      const line = txt(arrLines[i], base, rel, `addressLines[${i}]`, ctx, MAX_ADDRESS_LINE);
      if (line !== arrLines[i]) same = false;
      if (line !== undefined) lines.push(line);
    }
    if (same) lines = arrLines as string[];
  }
  clean =
    clean &&
    streetName === o['streetName'] &&
    buildingNumber === o['buildingNumber'] &&
    postCode === o['postCode'] &&
    townName === o['townName'] &&
    sub === o['countrySubDivision'] &&
    lines === rawLines;
  if (clean) return o as PostalAddress;
  const r: PostalAddress = {};
  if (streetName !== undefined) r.streetName = streetName;
  if (buildingNumber !== undefined) r.buildingNumber = buildingNumber;
  if (postCode !== undefined) r.postCode = postCode;
  if (townName !== undefined) r.townName = townName;
  if (sub !== undefined) r.countrySubDivision = sub;
  if (lines !== undefined) r.addressLines = lines;
  return r;
}

function otherAccount(v: unknown, base: string, rel: string, ctx: Ctx): OtherAccount | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, OTHER_KEYS, base, rel, ctx);
  const id = str(o['id'], base, rel, 'id', ctx);
  const scheme = str(o['scheme'], base, rel, 'scheme', ctx);
  const issuer = str(o['issuer'], base, rel, 'issuer', ctx);
  if (clean && id === o['id'] && scheme === o['scheme'] && issuer === o['issuer']) return o as OtherAccount;
  const r: OtherAccount = {};
  if (id !== undefined) r.id = id;
  if (scheme !== undefined) r.scheme = scheme;
  if (issuer !== undefined) r.issuer = issuer;
  return r;
}

function account(v: unknown, base: string, rel: string, ctx: Ctx): Account | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, ACCOUNT_KEYS, base, rel, ctx);
  const ib = iban(o['iban'], base, rel, ctx);
  const currency = str(o['currency'], base, rel, 'currency', ctx);
  const other = o['other'] === undefined ? undefined : otherAccount(o['other'], base, `${rel}.other`, ctx);
  if (clean && ib === o['iban'] && currency === o['currency'] && other === o['other']) return o as Account;
  const r: Account = {};
  if (ib !== undefined) r.iban = ib;
  if (currency !== undefined) r.currency = currency;
  if (other !== undefined) r.other = other;
  return r;
}

function clearing(v: unknown, base: string, rel: string, ctx: Ctx): Clearing | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, CLEARING_KEYS, base, rel, ctx);
  const systemCode = str(o['systemCode'], base, rel, 'systemCode', ctx);
  const memberId = str(o['memberId'], base, rel, 'memberId', ctx);
  if (clean && systemCode === o['systemCode'] && memberId === o['memberId']) return o as Clearing;
  const r: Clearing = {};
  if (systemCode !== undefined) r.systemCode = systemCode;
  if (memberId !== undefined) r.memberId = memberId;
  return r;
}

function agent(v: unknown, base: string, rel: string, ctx: Ctx): Agent | undefined {
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, AGENT_KEYS, base, rel, ctx);
  const bic = str(o['bic'], base, rel, 'bic', ctx);
  const c = o['clearing'] === undefined ? undefined : clearing(o['clearing'], base, `${rel}.clearing`, ctx);
  const name = txt(o['name'], base, rel, 'name', ctx, MAX_NAME);
  const country = str(o['country'], base, rel, 'country', ctx);
  if (clean && bic === o['bic'] && c === o['clearing'] && name === o['name'] && country === o['country'])
    return o as Agent;
  const r: Agent = {};
  if (bic !== undefined) r.bic = bic;
  if (c !== undefined) r.clearing = c;
  if (name !== undefined) r.name = name;
  if (country !== undefined) r.country = country;
  return r;
}

export function party(v: unknown, base: string, R: PartyRels, ctx: Ctx): Party | undefined {
  const rel = R.self;
  const o = obj(v, base, rel, ctx);
  if (!o) return undefined;
  const clean = unknownKeys(o, PARTY_KEYS, base, rel, ctx);
  const name = txt(o['name'], base, rel, 'name', ctx, MAX_NAME);
  const country = str(o['country'], base, rel, 'country', ctx);
  const pa = o['postalAddress'] === undefined ? undefined : address(o['postalAddress'], base, R.postalAddress, ctx);
  const acct = o['account'] === undefined ? undefined : account(o['account'], base, R.account, ctx);
  const ag = o['agent'] === undefined ? undefined : agent(o['agent'], base, R.agent, ctx);
  const org = o['organisationId'] === undefined ? undefined : orgId(o['organisationId'], base, R.org, ctx);
  if (
    clean &&
    name === o['name'] &&
    country === o['country'] &&
    pa === o['postalAddress'] &&
    acct === o['account'] &&
    ag === o['agent'] &&
    org === o['organisationId']
  ) {
    return o as Party;
  }
  const r: Party = {};
  if (name !== undefined) r.name = name;
  if (country !== undefined) r.country = country;
  if (pa !== undefined) r.postalAddress = pa;
  if (acct !== undefined) r.account = acct;
  if (ag !== undefined) r.agent = ag;
  if (org !== undefined) r.organisationId = org;
  return r;
}
