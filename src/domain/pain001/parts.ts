import type { CodeOrProprietary } from '../banks/types.ts';
import type {
  Account,
  Agent,
  OrganisationId,
  Party,
  RegulatoryReporting,
  Remittance,
  Transaction,
} from '../canonical/types.ts';
import { formatSplitPayment } from '../references/polish-remittance.ts';
import { esc, escText } from './escape.ts';

/**
 * Element builders shared by pain.001.001.03 and .09. Each returns a string already indented for its
 * place; element order follows the schemas (PartyIdentification32/135, PostalAddress6/24, CashAccount16/38,
 * BranchAndFinancialInstitutionIdentification4/6, RemittanceInformation5/16).
 */
/**
 * `v09`: the 2019 shapes (BICFI, ReqdExctnDt/Dt), which .11 keeps; `v11`: .11's own (the transaction's
 * InstrForDbtrAgt is InstructionForDebtorAgent1, its text in InstrInf).
 */
export type VersionTags = { v09: boolean; v11: boolean; bic: 'BIC' | 'BICFI' };

const ISO_ACCOUNT_SCHEMES = new Set(['BBAN', 'CUID', 'UPIC', 'AIIN']);
const CODE4 = /^[A-Z0-9]{1,4}$/;

export function codeOrPrtry(v: CodeOrProprietary): string {
  return 'cd' in v ? `<Cd>${esc(v.cd)}</Cd>` : `<Prtry>${esc(v.prtry)}</Prtry>`;
}

function schemeName(scheme: string, iso: (s: string) => boolean): string {
  return iso(scheme)
    ? `<SchmeNm><Cd>${esc(scheme)}</Cd></SchmeNm>`
    : `<SchmeNm><Prtry>${esc(scheme)}</Prtry></SchmeNm>`;
}

export function orgIdXml(org: OrganisationId | undefined, defaultScheme: string | undefined, ind: string): string {
  if (!org?.id) return '';
  const scheme = org.scheme ?? defaultScheme;
  const sch = scheme ? schemeName(scheme, (s) => CODE4.test(s)) : '';
  const issr = org.issuer ? `<Issr>${escText(org.issuer)}</Issr>` : '';
  return `${ind}<Id><OrgId><Othr><Id>${escText(org.id)}</Id>${sch}${issr}</Othr></OrgId></Id>\n`;
}

export function addressXml(p: Party, ind: string): string {
  const a = p.postalAddress;
  if (!a && !p.country) return '';
  let x = `${ind}<PstlAdr>`;
  if (a) {
    if (a.streetName) x += `<StrtNm>${escText(a.streetName)}</StrtNm>`;
    if (a.buildingNumber) x += `<BldgNb>${escText(a.buildingNumber)}</BldgNb>`;
    if (a.postCode) x += `<PstCd>${escText(a.postCode)}</PstCd>`;
    if (a.townName) x += `<TwnNm>${escText(a.townName)}</TwnNm>`;
    if (a.countrySubDivision) x += `<CtrySubDvsn>${escText(a.countrySubDivision)}</CtrySubDvsn>`;
  }
  if (p.country) x += `<Ctry>${p.country}</Ctry>`;
  if (a?.addressLines) {
    for (const line of a.addressLines) if (line) x += `<AdrLine>${escText(line)}</AdrLine>`;
  }
  return `${x}</PstlAdr>\n`;
}

/** A party element: Nm, PstlAdr, Id. */
export function partyXml(tag: string, p: Party | undefined, ind: string, defaultScheme?: string): string {
  if (!p) return '';
  const inner = ind + '  ';
  let x = `${ind}<${tag}>\n`;
  if (p.name) x += `${inner}<Nm>${escText(p.name)}</Nm>\n`;
  x += addressXml(p, inner);
  x += orgIdXml(p.organisationId, defaultScheme, inner);
  return `${x}${ind}</${tag}>\n`;
}

export function accountXml(tag: string, a: Account | undefined, ind: string): string {
  if (!a) return '';
  let id: string;
  if (a.iban) id = `<IBAN>${a.iban}</IBAN>`;
  else if (a.other?.id) {
    const o = a.other;
    const sch = o.scheme ? schemeName(o.scheme, (s) => ISO_ACCOUNT_SCHEMES.has(s)) : '';
    const issr = o.issuer ? `<Issr>${escText(o.issuer)}</Issr>` : '';
    id = `<Othr><Id>${escText(o.id ?? '')}</Id>${sch}${issr}</Othr>`;
  } else return '';
  const ccy = a.currency ? `<Ccy>${a.currency}</Ccy>` : '';
  return `${ind}<${tag}><Id>${id}</Id>${ccy}</${tag}>\n`;
}

/** An agent element; `required` writes `Othr/Id NOTPROVIDED` when nothing identifies the agent (DbtrAgt is mandatory). */
export function agentXml(tag: string, g: Agent | undefined, ind: string, t: VersionTags, required: boolean): string {
  let x = '';
  if (g?.bic) x += `<${t.bic}>${g.bic}</${t.bic}>`;
  const c = g?.clearing;
  if (c?.memberId) {
    const sys = c.systemCode ? `<ClrSysId><Cd>${esc(c.systemCode)}</Cd></ClrSysId>` : '';
    x += `<ClrSysMmbId>${sys}<MmbId>${escText(c.memberId)}</MmbId></ClrSysMmbId>`;
  }
  if (g?.name) x += `<Nm>${escText(g.name)}</Nm>`;
  if (g?.country) x += `<PstlAdr><Ctry>${g.country}</Ctry></PstlAdr>`;
  if (x === '') {
    if (!required) return '';
    x = '<Othr><Id>NOTPROVIDED</Id></Othr>';
  }
  return `${ind}<${tag}><FinInstnId>${x}</FinInstnId></${tag}>\n`;
}

export function regulatoryXml(r: RegulatoryReporting | undefined, ccy: string | undefined, ind: string): string {
  if (!r) return '';
  const auth = r.authorityCountry ? `<Authrty><Ctry>${r.authorityCountry}</Ctry></Authrty>` : '';
  let d = '';
  if (r.code) d += `<Cd>${esc(r.code)}</Cd>`;
  if (r.amount) d += `<Amt Ccy="${r.currency ?? ccy ?? ''}">${r.amount}</Amt>`;
  if (r.information) d += `<Inf>${escText(r.information)}</Inf>`;
  if (auth === '' && d === '') return '';
  return `${ind}<RgltryRptg>${auth}${d === '' ? '' : `<Dtls>${d}</Dtls>`}</RgltryRptg>\n`;
}

/** Card type of a Danish form type (DK_FIK71 -> 71) to prefix the payment id as `71/<id>`. */
function danishCardPrefix(typeCode: string | undefined, ref: string): string {
  const m = typeCode ? /^DK_(?:FIK|GIK)(\d{2})$/.exec(typeCode) : null;
  if (!m || /^\+?\d{2}[/<]/.test(ref)) return ref;
  return `${m[1]}/${ref}`;
}

export function remittanceXml(tx: Transaction, typeCode: string | undefined, ind: string): string {
  const r: Remittance | undefined = tx.remittance;
  const split = tx.splitPayment;
  let ustrd: string | undefined = r?.unstructured || undefined;
  if (split?.vatAmount && split.taxId && split.invoiceNumber) {
    const fields: { vatAmount: string; taxId: string; invoiceNumber: string; text?: string } = {
      vatAmount: split.vatAmount,
      taxId: split.taxId,
      invoiceNumber: split.invoiceNumber,
    };
    if (split.text) fields.text = split.text;
    ustrd = formatSplitPayment(fields);
  }
  let strd = '';
  const ref = r?.creditorReference;
  if (ref) {
    strd += `<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>${escText(danishCardPrefix(typeCode, ref.replace(/ /g, '')))}</Ref></CdtrRefInf></Strd>`;
  }
  const docs = r?.referredDocuments;
  if (docs) {
    for (const d of docs) {
      let inf = '';
      if (d.type) inf += `<Tp><CdOrPrtry><Cd>${esc(d.type)}</Cd></CdOrPrtry></Tp>`;
      if (d.number) inf += `<Nb>${escText(d.number)}</Nb>`;
      if (d.relatedDate) inf += `<RltdDt>${d.relatedDate}</RltdDt>`;
      const amt = d.amount ? `<RfrdDocAmt><RmtdAmt Ccy="${tx.currency ?? ''}">${d.amount}</RmtdAmt></RfrdDocAmt>` : '';
      if (inf !== '' || amt !== '') strd += `<Strd>${inf === '' ? '' : `<RfrdDocInf>${inf}</RfrdDocInf>`}${amt}</Strd>`;
    }
  }
  if (!ustrd && strd === '') return '';
  return `${ind}<RmtInf>${ustrd ? `<Ustrd>${escText(ustrd)}</Ustrd>` : ''}${strd}</RmtInf>\n`;
}
