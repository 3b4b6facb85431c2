import { letterPair } from '../validation/countries.ts';
import type { TxFields, TxRun } from '../validation/fast-transaction.ts';
import {
  FIELD_BUILDING,
  FIELD_NAME,
  FIELD_POST_CODE,
  FIELD_STREET,
  FIELD_TOWN,
  FIELD_UNSTRUCTURED,
  ID_CLASSES,
  inCharset,
  isIdentifierClassed,
  transliterate,
} from '../validation/fast-transaction.ts';
import { MAX_BUILDING, MAX_POST_CODE, MAX_STREET, MAX_TOWN } from '../validation/field-rules.ts';
import { isBicShapeAt } from '../validation/formats.ts';
import { esc } from './escape.ts';
import type { VersionTags } from './parts.ts';
import { remittanceXml } from './parts.ts';
import type { XmlBytes } from './xml-bytes.ts';
import { StaticBytes, TRANSACTION_ROOM } from './xml-bytes.ts';

/**
 * One CdtTrfTxInf from the fields the fused reader produced, written as bytes: the same text
 * transactionXml writes for that shape (write-pain001.ts). The static XML between fields is encoded once
 * per version; the pieces that follow the currency and the creditor's country are cached per value, so a
 * transaction is about a dozen copies of static bytes and a dozen field copies. Free text is checked
 * against the bank's charset as it is copied; a field with a character outside it is written again,
 * transliterated (with the normaliser's warning), and false means an error: the full path takes over.
 */

const enc = (s: string): StaticBytes => new StaticBytes(s);

/**
 * Pieces that depend on one short value (currency, country): each encoded once per distinct value. Two
 * capital letters (a country, which changes from one creditor to the next) index a table directly; other
 * values (a currency, which rarely changes) are compared with the last one, then looked up in a Map. A
 * class rather than closures, so the calls in the transaction loop are to one method V8 can inline.
 */
class Pieces {
  private readonly make: (v: string) => string;
  private readonly pairs: Array<StaticBytes | undefined> = new Array(26 * 26).fill(undefined);
  private readonly memo = new Map<string, StaticBytes>();
  private last = '';
  private lastPiece: StaticBytes = enc('');

  constructor(make: (v: string) => string) {
    this.make = make;
  }

  get(v: string): StaticBytes {
    const slot = v.length === 2 ? letterPair(v) : -1;
    if (slot >= 0) return this.pairs[slot] ?? this.add(v, slot);
    if (v === this.last) return this.lastPiece;
    const piece = this.memo.get(v) ?? this.add(v, -1);
    this.last = v;
    this.lastPiece = piece;
    return piece;
  }

  private add(v: string, slot: number): StaticBytes {
    const piece = enc(this.make(v));
    if (slot >= 0) this.pairs[slot] = piece;
    else if (this.memo.size < 512) this.memo.set(v, piece);
    return piece;
  }
}

/** Positions in the creditor block: after the name, then after each address element. */
const AFTER_NAME = 0;
const STREET = 1;
const BUILDING = 2;
const POST_CODE = 3;
const TOWN = 4;
const OPEN = ['', '<StrtNm>', '<BldgNb>', '<PstCd>', '<TwnNm>'];
const CLOSE = ['</Nm>\n        <PstlAdr>', '</StrtNm>', '</BldgNb>', '</PstCd>', '</TwnNm>'];

/**
 * Static XML of a transaction, each piece joining the end of one field to the start of the next so a
 * transaction of the common shape is about a dozen copies: `join[from * 5 + to]` between address elements,
 * `tail[from]` from the last one through the country to the IBAN.
 */
export type Templates = {
  openInstr: StaticBytes;
  openE2e: StaticBytes;
  instrE2e: StaticBytes;
  amountOpen: Pieces;
  agentOpen: StaticBytes;
  agentClose: StaticBytes;
  noAgent: StaticBytes;
  join: StaticBytes[];
  tail: Pieces[];
  countryOnly: Pieces;
  nameToAccount: StaticBytes;
  accountToPurpose: StaticBytes;
  accountToUstrd: StaticBytes;
  accountToEnd: StaticBytes;
  accountEnd: StaticBytes;
  purposeToUstrd: StaticBytes;
  purposeToEnd: StaticBytes;
  ustrdToEnd: StaticBytes;
  end: StaticBytes;
};

const TEMPLATES = new Map<string, Templates>();

/** The templates of a version, built once per process (the cached pieces grow with the currencies and countries seen). */
export function transactionTemplates(t: VersionTags): Templates {
  let tpl = TEMPLATES.get(t.bic);
  if (!tpl) {
    tpl = buildTemplates(t);
    TEMPLATES.set(t.bic, tpl);
  }
  return tpl;
}

function buildTemplates(t: VersionTags): Templates {
  const toAccount = '      </Cdtr>\n      <CdtrAcct><Id><IBAN>';
  const join: StaticBytes[] = [];
  for (let from = 0; from < 5; from++) for (let to = 0; to < 5; to++) join.push(enc(`${CLOSE[from]}${OPEN[to]}`));
  const tail = CLOSE.map(
    (close) => new Pieces((c) => `${close}${c ? `<Ctry>${c}</Ctry>` : ''}</PstlAdr>\n${toAccount}`),
  );
  const accountEnd = '</IBAN></Id></CdtrAcct>\n';
  const end = '    </CdtTrfTxInf>\n';
  return {
    openInstr: enc('    <CdtTrfTxInf>\n      <PmtId><InstrId>'),
    openE2e: enc('    <CdtTrfTxInf>\n      <PmtId><EndToEndId>'),
    instrE2e: enc('</InstrId><EndToEndId>'),
    amountOpen: new Pieces((c) => `</EndToEndId></PmtId>\n      <Amt><InstdAmt Ccy="${c}">`),
    agentOpen: enc(`</InstdAmt></Amt>\n      <CdtrAgt><FinInstnId><${t.bic}>`),
    agentClose: enc(`</${t.bic}></FinInstnId></CdtrAgt>\n      <Cdtr>\n        <Nm>`),
    noAgent: enc('</InstdAmt></Amt>\n      <Cdtr>\n        <Nm>'),
    join,
    tail,
    countryOnly: new Pieces((c) => `</Nm>\n        <PstlAdr><Ctry>${c}</Ctry></PstlAdr>\n${toAccount}`),
    nameToAccount: enc(`</Nm>\n${toAccount}`),
    accountToPurpose: enc(`${accountEnd}      <Purp><Cd>`),
    accountToUstrd: enc(`${accountEnd}      <RmtInf><Ustrd>`),
    accountToEnd: enc(`${accountEnd}${end}`),
    accountEnd: enc(accountEnd),
    purposeToUstrd: enc('</Cd></Purp>\n      <RmtInf><Ustrd>'),
    purposeToEnd: enc(`</Cd></Purp>\n${end}`),
    ustrdToEnd: enc(`</Ustrd></RmtInf>\n${end}`),
    end: enc(end),
  };
}

/**
 * A free-text field: copied when every character is in the charset, else transliterated and copied.
 * False for a character without a safe replacement or a text longer than `max` once transliterated.
 */
function textField(out: XmlBytes, v: string, max: number, run: TxRun, field: number, j: number): boolean {
  if (out.text(v, run.classes)) return true;
  const value = transliterate(v, run, field, j);
  if (value === undefined || value.length > max) return false;
  // Transliterated text is inside the charset; `esc` covers a character the class table does not.
  if (!out.text(value, run.classes)) out.write(esc(value));
  return true;
}

/** The address elements present, from `STREET` on; each joined to the one before. */
function address(out: XmlBytes, f: TxFields, run: TxRun, tpl: Templates, j: number): boolean {
  let at = AFTER_NAME;
  if (f.streetName) {
    out.raw(tpl.join[at * 5 + STREET] as StaticBytes);
    if (!textField(out, f.streetName, MAX_STREET, run, FIELD_STREET, j)) return false;
    at = STREET;
  }
  if (f.buildingNumber) {
    out.raw(tpl.join[at * 5 + BUILDING] as StaticBytes);
    if (!textField(out, f.buildingNumber, MAX_BUILDING, run, FIELD_BUILDING, j)) return false;
    at = BUILDING;
  }
  if (f.postCode) {
    out.raw(tpl.join[at * 5 + POST_CODE] as StaticBytes);
    if (!textField(out, f.postCode, MAX_POST_CODE, run, FIELD_POST_CODE, j)) return false;
    at = POST_CODE;
  }
  if (f.townName) {
    out.raw(tpl.join[at * 5 + TOWN] as StaticBytes);
    if (!textField(out, f.townName, MAX_TOWN, run, FIELD_TOWN, j)) return false;
    at = TOWN;
  }
  out.raw((tpl.tail[at] as Pieces).get(f.country ?? ''));
  return true;
}

export function writeTransaction(
  out: XmlBytes,
  f: TxFields,
  run: TxRun,
  tpl: Templates,
  amountOpen: StaticBytes,
  j: number,
  typeCode: string | undefined,
): boolean {
  out.room(TRANSACTION_ROOM);
  // Ids and the BIC are checked as they are copied (the reader checked their lengths only).
  if (f.instructionId) {
    out.raw(tpl.openInstr);
    if (!isIdentifierClassed(out.classed(f.instructionId, ID_CLASSES), f.instructionId)) return false;
    out.raw(tpl.instrE2e);
  } else out.raw(tpl.openE2e);
  if (!isIdentifierClassed(out.classed(f.endToEndId, ID_CLASSES), f.endToEndId)) return false;
  out.raw(amountOpen);
  out.ascii(f.amount);
  if (f.bic !== undefined) {
    out.raw(tpl.agentOpen);
    const at = out.pos;
    // Every BIC character is in class 0 of the identifier classes (A-Z, 0-9); the shape is checked on the copy.
    if (out.classed(f.bic, ID_CLASSES) !== 0 || !isBicShapeAt(out.buf, at, f.bic.length)) return false;
    out.raw(tpl.agentClose);
  } else out.raw(tpl.noAgent);
  if (!textField(out, f.name, run.nameLimit, run, FIELD_NAME, j)) return false;
  if (f.address) {
    if (!address(out, f, run, tpl, j)) return false;
  } else out.raw(f.country ? tpl.countryOnly.get(f.country) : tpl.nameToAccount);
  out.ascii(f.iban);
  const u = f.unstructured;
  if (f.creditorReference !== undefined) {
    out.raw(f.purposeCode === undefined ? tpl.accountEnd : tpl.accountToPurpose);
    if (f.purposeCode !== undefined) {
      out.ascii(f.purposeCode);
      out.write('</Cd></Purp>\n');
    }
    // Structured references (and the Danish card prefix) through the general builder: same text by construction.
    const r: { unstructured?: string; creditorReference: string } = { creditorReference: f.creditorReference };
    if (u !== undefined) {
      const value = inCharset(u, run.classes) ? u : transliterate(u, run, FIELD_UNSTRUCTURED, j);
      if (value === undefined || value.length > run.unstructuredLimit) return false;
      r.unstructured = value;
    }
    out.write(remittanceXml({ currency: f.currency, remittance: r }, typeCode, '      '));
    out.raw(tpl.end);
    return true;
  }
  if (f.purposeCode !== undefined) {
    out.raw(tpl.accountToPurpose);
    out.ascii(f.purposeCode);
    out.raw(u ? tpl.purposeToUstrd : tpl.purposeToEnd);
  } else out.raw(u ? tpl.accountToUstrd : tpl.accountToEnd);
  if (u) {
    if (!textField(out, u, run.unstructuredLimit, run, FIELD_UNSTRUCTURED, j)) return false;
    out.raw(tpl.ustrdToEnd);
  }
  return true;
}
