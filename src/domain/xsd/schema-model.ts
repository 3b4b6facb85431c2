import type { PainVersion } from '../banks/types.ts';

/**
 * Our own model of the pain.001.001.03, .09 and .11 schemas, restricted to the elements our writer emits:
 * element order, cardinality, text lengths and patterns. It lets `validate=true` work on a fresh install
 * without the official XSDs (third-party files we may not ship; DESIGN.md "Stack").
 */
export type SimpleType =
  | { kind: 'text'; max: number; min?: number }
  | { kind: 'pattern'; re: RegExp; label: string }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'decimal'; fraction: number; total: number }
  | { kind: 'amount' };

type Particle = { name: string; type: string; min: number; max: number };
/** A complex type is a sequence, or a choice of exactly one of its particles. */
export type ComplexType = { seq: Particle[] } | { choice: Particle[] };
export type SchemaModel = { root: string; types: Record<string, ComplexType | SimpleType> };

const U = Number.POSITIVE_INFINITY;
const p = (name: string, type: string, min = 0, max = 1): Particle => ({ name, type, min, max });
const text = (max: number): SimpleType => ({ kind: 'text', max });
const pattern = (re: RegExp, label: string): SimpleType => ({ kind: 'pattern', re, label });

const SIMPLE: Record<string, SimpleType> = {
  Max4Text: text(4),
  Max5Text: text(5),
  Max10Text: text(10),
  Max16Text: text(16),
  Max34Text: text(34),
  Max35Text: text(35),
  Max70Text: text(70),
  Max140Text: text(140),
  ISODate: pattern(/^\d{4}-\d{2}-\d{2}$/, 'ISODate'),
  ISODateTime: pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/, 'ISODateTime'),
  Max15NumericText: pattern(/^[0-9]{1,15}$/, 'Max15NumericText'),
  DecimalNumber: { kind: 'decimal', fraction: 17, total: 18 },
  Amount: { kind: 'amount' },
  IBAN: pattern(/^[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{1,30}$/, 'IBAN2007Identifier'),
  CountryCode: pattern(/^[A-Z]{2}$/, 'CountryCode'),
  CurrencyCode: pattern(/^[A-Z]{3}$/, 'ActiveOrHistoricCurrencyCode'),
  BIC03: pattern(/^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$/, 'BICIdentifier'),
  BIC09: pattern(/^[A-Z0-9]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/, 'BICFIDec2014Identifier'),
  PaymentMethod: { kind: 'enum', values: ['CHK', 'TRF', 'TRA'] },
  Boolean: { kind: 'enum', values: ['true', 'false'] },
  Priority: { kind: 'enum', values: ['HIGH', 'NORM'] },
  ChargeBearer: { kind: 'enum', values: ['DEBT', 'CRED', 'SHAR', 'SLEV'] },
};

function complexTypes(v09: boolean, v11 = false): Record<string, ComplexType> {
  return { ...messageTypes(v09), ...partyTypes(v09), ...transactionTypes(v11) };
}

/** The message, its group header and payment information, and the code choices. */
function messageTypes(v09: boolean): Record<string, ComplexType> {
  return {
    Document: { seq: [p('CstmrCdtTrfInitn', 'CstmrCdtTrfInitn', 1)] },
    CstmrCdtTrfInitn: { seq: [p('GrpHdr', 'GrpHdr', 1), p('PmtInf', 'PmtInf', 1, U)] },
    GrpHdr: {
      seq: [
        p('MsgId', 'Max35Text', 1),
        p('CreDtTm', 'ISODateTime', 1),
        p('NbOfTxs', 'Max15NumericText', 1),
        p('CtrlSum', 'DecimalNumber'),
        p('InitgPty', 'Party', 1),
      ],
    },
    PmtInf: {
      seq: [
        p('PmtInfId', 'Max35Text', 1),
        p('PmtMtd', 'PaymentMethod', 1),
        p('BtchBookg', 'Boolean'),
        p('NbOfTxs', 'Max15NumericText', 1),
        p('CtrlSum', 'DecimalNumber'),
        p('PmtTpInf', 'PmtTpInf'),
        p('ReqdExctnDt', v09 ? 'DateChoice' : 'ISODate', 1),
        p('Dbtr', 'Party', 1),
        p('DbtrAcct', 'Account', 1),
        p('DbtrAgt', 'Agent', 1),
        p('UltmtDbtr', 'Party'),
        p('ChrgBr', 'ChargeBearer'),
        p('CdtTrfTxInf', 'CdtTrfTxInf', 1, U),
      ],
    },
    DateChoice: { choice: [p('Dt', 'ISODate', 1), p('DtTm', 'ISODateTime', 1)] },
    PmtTpInf: {
      seq: [
        p('InstrPrty', 'Priority'),
        p('SvcLvl', 'Code4', 0, v09 ? U : 1),
        p('LclInstrm', 'Code35'),
        p('CtgyPurp', 'Code4'),
      ],
    },
    Code4: { choice: [p('Cd', 'Max4Text', 1), p('Prtry', 'Max35Text', 1)] },
    Code35: { choice: [p('Cd', 'Max35Text', 1), p('Prtry', 'Max35Text', 1)] },
    Code5: { choice: [p('Cd', 'Max5Text', 1), p('Prtry', 'Max35Text', 1)] },
  };
}

/** Parties, addresses, accounts and agents. */
function partyTypes(v09: boolean): Record<string, ComplexType> {
  return {
    Party: { seq: [p('Nm', 'Max140Text'), p('PstlAdr', 'PstlAdr'), p('Id', 'PartyId'), p('CtryOfRes', 'CountryCode')] },
    PstlAdr: {
      seq: [
        p('StrtNm', 'Max70Text'),
        p('BldgNb', 'Max16Text'),
        p('PstCd', 'Max16Text'),
        p('TwnNm', 'Max35Text'),
        p('CtrySubDvsn', 'Max35Text'),
        p('Ctry', 'CountryCode'),
        p('AdrLine', 'Max70Text', 0, 7),
      ],
    },
    PartyId: { choice: [p('OrgId', 'OrgId', 1)] },
    OrgId: { seq: [p('Othr', 'GenericId', 0, U)] },
    GenericId: { seq: [p('Id', 'Max35Text', 1), p('SchmeNm', 'Code4'), p('Issr', 'Max35Text')] },
    Account: { seq: [p('Id', 'AccountId', 1), p('Ccy', 'CurrencyCode')] },
    AccountId: { choice: [p('IBAN', 'IBAN', 1), p('Othr', 'GenericAccountId', 1)] },
    GenericAccountId: { seq: [p('Id', 'Max34Text', 1), p('SchmeNm', 'Code4'), p('Issr', 'Max35Text')] },
    Agent: { seq: [p('FinInstnId', 'FinInstnId', 1)] },
    FinInstnId: {
      seq: [
        p(v09 ? 'BICFI' : 'BIC', v09 ? 'BIC09' : 'BIC03'),
        p('ClrSysMmbId', 'ClrSysMmbId'),
        p('Nm', 'Max140Text'),
        p('PstlAdr', 'PstlAdr'),
        p('Othr', 'GenericFinId'),
      ],
    },
    ClrSysMmbId: { seq: [p('ClrSysId', 'Code5'), p('MmbId', 'Max35Text', 1)] },
    GenericFinId: { seq: [p('Id', 'Max35Text', 1)] },
  };
}

/** The credit transfer transaction and its parts (.11 changes only its InstrForDbtrAgt). */
function transactionTypes(v11: boolean): Record<string, ComplexType> {
  return {
    CdtTrfTxInf: {
      seq: [
        p('PmtId', 'PmtId', 1),
        p('PmtTpInf', 'PmtTpInf'),
        p('Amt', 'Amt', 1),
        p('ChrgBr', 'ChargeBearer'),
        p('UltmtDbtr', 'Party'),
        p('CdtrAgt', 'Agent'),
        p('Cdtr', 'Party'),
        p('CdtrAcct', 'Account'),
        p('UltmtCdtr', 'Party'),
        p('InstrForDbtrAgt', v11 ? 'InstrForDbtrAgt' : 'Max140Text'),
        p('Purp', 'Code4'),
        p('RgltryRptg', 'RgltryRptg', 0, 10),
        p('RmtInf', 'RmtInf'),
      ],
    },
    PmtId: { seq: [p('InstrId', 'Max35Text'), p('EndToEndId', 'Max35Text', 1)] },
    // .11's InstructionForDebtorAgent1: an external code and/or the text.
    InstrForDbtrAgt: { seq: [p('Cd', 'Max4Text'), p('InstrInf', 'Max140Text')] },
    Amt: { choice: [p('InstdAmt', 'Amount', 1)] },
    RgltryRptg: { seq: [p('Authrty', 'Authrty'), p('Dtls', 'RgltryDtls', 0, U)] },
    Authrty: { seq: [p('Nm', 'Max140Text'), p('Ctry', 'CountryCode')] },
    RgltryDtls: { seq: [p('Cd', 'Max10Text'), p('Amt', 'Amount'), p('Inf', 'Max35Text', 0, U)] },
    RmtInf: { seq: [p('Ustrd', 'Max140Text', 0, U), p('Strd', 'Strd', 0, U)] },
    Strd: { seq: [p('RfrdDocInf', 'RfrdDocInf', 0, U), p('RfrdDocAmt', 'RfrdDocAmt'), p('CdtrRefInf', 'CdtrRefInf')] },
    RfrdDocInf: { seq: [p('Tp', 'DocType'), p('Nb', 'Max35Text'), p('RltdDt', 'ISODate')] },
    DocType: { seq: [p('CdOrPrtry', 'Code4', 1)] },
    RfrdDocAmt: { seq: [p('RmtdAmt', 'Amount')] },
    CdtrRefInf: { seq: [p('Tp', 'CdtrRefTp'), p('Ref', 'Max35Text')] },
    CdtrRefTp: { seq: [p('CdOrPrtry', 'Code4', 1), p('Issr', 'Max35Text')] },
  };
}

const MODELS: Record<PainVersion, SchemaModel> = {
  'pain.001.001.03': { root: 'Document', types: { ...SIMPLE, ...complexTypes(false) } },
  'pain.001.001.09': { root: 'Document', types: { ...SIMPLE, ...complexTypes(true) } },
  // The 2021 revision: every element we write keeps its .09 shape but the transaction's InstrForDbtrAgt.
  'pain.001.001.11': { root: 'Document', types: { ...SIMPLE, ...complexTypes(true, true) } },
};

export function schemaModel(version: PainVersion): SchemaModel {
  return MODELS[version];
}
