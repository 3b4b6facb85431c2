import { esc } from './xml.ts';

/**
 * Business Transaction Formats (EBICS 3.0 BTF, German DK mapping): what a BTU uploads or a BTD
 * downloads, named by service, scope, message and version instead of the 2.5 order types (CCT,
 * C53, C52, C54, CRZ ...).
 */
export type Btf = {
  serviceName: string;
  scope?: string | undefined;
  serviceOption?: string | undefined;
  container?: 'ZIP' | 'XML' | 'SVC' | undefined;
  messageName: string;
  messageVersion?: string | undefined;
};

/** SEPA credit transfer (DK: SCT, pain.001 in the profile's version): the 2.5 order type CCT. */
export function sctUpload(painVersion: string): Btf {
  return { serviceName: 'SCT', messageName: 'pain.001', messageVersion: painVersion };
}

/**
 * What the channel downloads, and which 2.5 order type each replaces: every file of a kind the bank
 * holds comes in one ZIP container, confirmed by one receipt.
 */
export const DOWNLOADS = {
  /** End-of-period statement: camt.053 (C53). */
  statement: { serviceName: 'EOP', scope: 'DE', messageName: 'camt.053', messageVersion: '08', container: 'ZIP' },
  /** Intraday report: camt.052 (C52). */
  report: { serviceName: 'STM', scope: 'DE', messageName: 'camt.052', messageVersion: '08', container: 'ZIP' },
  /** Debit/credit notification: camt.054 (C54). */
  notification: { serviceName: 'REP', scope: 'DE', messageName: 'camt.054', messageVersion: '08', container: 'ZIP' },
  /** Payment status report: pain.002 (CRZ / the PSR of the DK). */
  status: { serviceName: 'PSR', scope: 'BIL', messageName: 'pain.002', messageVersion: '10', container: 'ZIP' },
} as const satisfies Record<string, Btf>;

/** The Service element of BTU/BTD order parameters. */
export function serviceXml(btf: Btf): string {
  return (
    `<Service><ServiceName>${esc(btf.serviceName)}</ServiceName>` +
    (btf.scope ? `<Scope>${esc(btf.scope)}</Scope>` : '') +
    (btf.serviceOption ? `<ServiceOption>${esc(btf.serviceOption)}</ServiceOption>` : '') +
    (btf.container ? `<Container containerType="${btf.container}"/>` : '') +
    `<MsgName${btf.messageVersion ? ` version="${esc(btf.messageVersion)}"` : ''}>${esc(btf.messageName)}</MsgName></Service>`
  );
}
