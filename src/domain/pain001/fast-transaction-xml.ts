import { Buffer } from 'node:buffer';
import type { TxFields, TxRun } from '../validation/fast-transaction.ts';
import {
  FIELD_BUILDING,
  FIELD_NAME,
  FIELD_POST_CODE,
  FIELD_STREET,
  FIELD_TOWN,
  FIELD_UNSTRUCTURED,
  inCharset,
  transliterate,
} from '../validation/fast-transaction.ts';
import { esc } from './escape.ts';
import type { VersionTags } from './parts.ts';
import { remittanceXml } from './parts.ts';
import type { XmlBytes } from './xml-bytes.ts';
import { TRANSACTION_ROOM } from './xml-bytes.ts';

/**
 * One CdtTrfTxInf from the fields the fused reader produced, written as bytes: the same text
 * transactionXml writes for that shape (write-pain001.ts). The static XML between fields is encoded once
 * per version; the pieces that follow the currency and the creditor's country are cached per value, so a
 * transaction is about a dozen copies of static bytes and a dozen field copies. Free text is checked
 * against the bank's charset as it is copied; a field with a character outside it is written again,
 * transliterated (with the normaliser's warning), and false means an error: the full path takes over.
 */

const enc = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));

export type Templates = {
  open: Uint8Array;
  instrOpen: Uint8Array;
  instrClose: Uint8Array;
  e2eOpen: Uint8Array;
  amountOpen: (currency: string) => Uint8Array;
  agentOpen: Uint8Array;
  agentClose: Uint8Array;
  noAgent: Uint8Array;
  nameToAddress: Uint8Array;
  addressTail: (country: string | undefined) => Uint8Array;
  countryOnly: (country: string) => Uint8Array;
  nameToAccount: Uint8Array;
  streetOpen: Uint8Array;
  streetClose: Uint8Array;
  buildingOpen: Uint8Array;
  buildingClose: Uint8Array;
  postCodeOpen: Uint8Array;
  postCodeClose: Uint8Array;
  townOpen: Uint8Array;
  townClose: Uint8Array;
  accountClose: Uint8Array;
  purposeOpen: Uint8Array;
  purposeClose: Uint8Array;
  ustrdOpen: Uint8Array;
  ustrdClose: Uint8Array;
  close: Uint8Array;
};

/** A piece that depends on one short value (currency, country): encoded once per distinct value. */
function cached(make: (v: string) => string): (v: string) => Uint8Array {
  const memo = new Map<string, Uint8Array>();
  let last = '';
  let lastBytes: Uint8Array = new Uint8Array(0);
  return (v) => {
    if (v === last) return lastBytes;
    let b = memo.get(v);
    if (!b) {
      b = enc(make(v));
      if (memo.size < 512) memo.set(v, b);
    }
    last = v;
    lastBytes = b;
    return b;
  };
}

export function transactionTemplates(t: VersionTags): Templates {
  const toAccount = '      </Cdtr>\n      <CdtrAcct><Id><IBAN>';
  const country = cached((c) => `<Ctry>${c}</Ctry></PstlAdr>\n${toAccount}`);
  const noCountry = enc(`</PstlAdr>\n${toAccount}`);
  return {
    open: enc('    <CdtTrfTxInf>\n      <PmtId>'),
    instrOpen: enc('<InstrId>'),
    instrClose: enc('</InstrId>'),
    e2eOpen: enc('<EndToEndId>'),
    amountOpen: cached((c) => `</EndToEndId></PmtId>\n      <Amt><InstdAmt Ccy="${c}">`),
    agentOpen: enc(`</InstdAmt></Amt>\n      <CdtrAgt><FinInstnId><${t.bic}>`),
    agentClose: enc(`</${t.bic}></FinInstnId></CdtrAgt>\n      <Cdtr>\n        <Nm>`),
    noAgent: enc('</InstdAmt></Amt>\n      <Cdtr>\n        <Nm>'),
    nameToAddress: enc('</Nm>\n        <PstlAdr>'),
    addressTail: (c) => (c ? country(c) : noCountry),
    countryOnly: cached((c) => `</Nm>\n        <PstlAdr><Ctry>${c}</Ctry></PstlAdr>\n${toAccount}`),
    nameToAccount: enc(`</Nm>\n${toAccount}`),
    streetOpen: enc('<StrtNm>'),
    streetClose: enc('</StrtNm>'),
    buildingOpen: enc('<BldgNb>'),
    buildingClose: enc('</BldgNb>'),
    postCodeOpen: enc('<PstCd>'),
    postCodeClose: enc('</PstCd>'),
    townOpen: enc('<TwnNm>'),
    townClose: enc('</TwnNm>'),
    accountClose: enc('</IBAN></Id></CdtrAcct>\n'),
    purposeOpen: enc('      <Purp><Cd>'),
    purposeClose: enc('</Cd></Purp>\n'),
    ustrdOpen: enc('      <RmtInf><Ustrd>'),
    ustrdClose: enc('</Ustrd></RmtInf>\n'),
    close: enc('    </CdtTrfTxInf>\n'),
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

export function writeTransaction(
  out: XmlBytes,
  f: TxFields,
  run: TxRun,
  tpl: Templates,
  j: number,
  typeCode: string | undefined,
): boolean {
  out.room(TRANSACTION_ROOM);
  out.raw(tpl.open);
  if (f.instructionId) {
    out.raw(tpl.instrOpen);
    out.ascii(f.instructionId);
    out.raw(tpl.instrClose);
  }
  out.raw(tpl.e2eOpen);
  out.ascii(f.endToEndId);
  out.raw(tpl.amountOpen(f.currency));
  out.ascii(f.amount);
  if (f.bic !== undefined) {
    out.raw(tpl.agentOpen);
    out.ascii(f.bic);
    out.raw(tpl.agentClose);
  } else out.raw(tpl.noAgent);
  if (!textField(out, f.name, run.nameLimit, run, FIELD_NAME, j)) return false;
  if (f.address) {
    out.raw(tpl.nameToAddress);
    if (f.streetName) {
      out.raw(tpl.streetOpen);
      if (!textField(out, f.streetName, 70, run, FIELD_STREET, j)) return false;
      out.raw(tpl.streetClose);
    }
    if (f.buildingNumber) {
      out.raw(tpl.buildingOpen);
      if (!textField(out, f.buildingNumber, 16, run, FIELD_BUILDING, j)) return false;
      out.raw(tpl.buildingClose);
    }
    if (f.postCode) {
      out.raw(tpl.postCodeOpen);
      if (!textField(out, f.postCode, 16, run, FIELD_POST_CODE, j)) return false;
      out.raw(tpl.postCodeClose);
    }
    if (f.townName) {
      out.raw(tpl.townOpen);
      if (!textField(out, f.townName, 35, run, FIELD_TOWN, j)) return false;
      out.raw(tpl.townClose);
    }
    out.raw(tpl.addressTail(f.country));
  } else out.raw(f.country ? tpl.countryOnly(f.country) : tpl.nameToAccount);
  out.ascii(f.iban);
  out.raw(tpl.accountClose);
  if (f.purposeCode !== undefined) {
    out.raw(tpl.purposeOpen);
    out.ascii(f.purposeCode);
    out.raw(tpl.purposeClose);
  }
  const u = f.unstructured;
  if (f.creditorReference === undefined) {
    if (u) {
      out.raw(tpl.ustrdOpen);
      if (!textField(out, u, run.unstructuredLimit, run, FIELD_UNSTRUCTURED, j)) return false;
      out.raw(tpl.ustrdClose);
    }
  } else {
    // Structured references (and the Danish card prefix) through the general builder: same text by construction.
    const r: { unstructured?: string; creditorReference: string } = { creditorReference: f.creditorReference };
    if (u !== undefined) {
      const value = inCharset(u, run.classes) ? u : transliterate(u, run, FIELD_UNSTRUCTURED, j);
      if (value === undefined || value.length > run.unstructuredLimit) return false;
      r.unstructured = value;
    }
    out.write(remittanceXml({ currency: f.currency, remittance: r }, typeCode, '      '));
  }
  out.raw(tpl.close);
  return true;
}
