/**
 * Which kind of bank file a text is, from the ISO 20022 namespace (or, for a document without one,
 * the message element) or from the MT header and tags. Versions we have never seen are still
 * accepted when the namespace is well-formed; unknown message types and broken namespaces are not.
 */
export type DetectedFormat =
  | { kind: 'camt'; format: 'camt.052' | 'camt.053' | 'camt.054'; sourceFormat: string; namespaced: boolean }
  | { kind: 'pain.002'; sourceFormat: string; namespaced: boolean }
  | { kind: 'mt'; format: 'mt940' | 'mt942' }
  | { kind: 'unrecognised'; message: string };

const MESSAGE_ELEMENTS: Record<string, 'camt.052' | 'camt.053' | 'camt.054' | 'pain.002'> = {
  BkToCstmrAcctRpt: 'camt.052',
  BkToCstmrAcctRptV01: 'camt.052',
  BkToCstmrStmt: 'camt.053',
  BkToCstmrStmtV01: 'camt.053',
  BkToCstmrDbtCdtNtfctn: 'camt.054',
  BkToCstmrDbtCdtNtfctnV01: 'camt.054',
  CstmrPmtStsRpt: 'pain.002',
  CstmrPmtStsRptV03: 'pain.002',
};

// ISO: urn:iso:std:iso:20022:tech:xsd:camt.053.001.08; SIX: http://www.six-interbank-clearing.com/de/pain.002.001.03.ch.02.xsd;
// German DK: urn:iso:std:iso:20022:tech:xsd:pain.002.002.03 and similar variant numbers.
const NAMESPACE_VERSION = /(?:^|[:/])((camt\.05[234]|pain\.002)\.\d{3}\.\d{2})(?:\.[a-z]{2}\.\d{2})?(?:\.xsd)?$/;

const HEAD_LIMIT = 64 * 1024;

function documentNamespace(head: string): { ns: string | null; found: boolean } {
  // The Document element may be wrapped (AppHdr envelopes put it second), so look for it anywhere in the head.
  const m = /<(?:([A-Za-z_][\w.-]*):)?Document\b([^>]*)>?/.exec(head);
  if (!m) return { ns: null, found: false };
  const prefix = m[1];
  const attrs = m[2] ?? '';
  // The namespace that applies to Document: xmlns:<its prefix>, or the default xmlns (never xmlns:xsi).
  const re = prefix
    ? new RegExp(`\\bxmlns:${prefix.replace('.', '\\.')}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`)
    : /\bxmlns\s*=\s*(?:"([^"]*)"|'([^']*)')/;
  const ns = re.exec(attrs) ?? (prefix ? re.exec(head) : null);
  return { ns: ns ? (ns[1] ?? ns[2] ?? '').trim() : null, found: true };
}

function messageElement(
  head: string,
): { name: string; format: 'camt.052' | 'camt.053' | 'camt.054' | 'pain.002' } | undefined {
  const re = /<(?:[A-Za-z_][\w.-]*:)?([A-Za-z]+(?:V\d\d)?)[\s/>]/g;
  for (let m = re.exec(head); m; m = re.exec(head)) {
    const f = MESSAGE_ELEMENTS[m[1] ?? ''];
    if (f) return { name: m[1] ?? '', format: f };
  }
  return undefined;
}

function detectXml(head: string): DetectedFormat {
  const doc = documentNamespace(head);
  const message = messageElement(head);
  if (doc.ns) {
    const m = NAMESPACE_VERSION.exec(doc.ns);
    if (!m) return { kind: 'unrecognised', message: `unsupported XML namespace "${doc.ns}"` };
    const version = m[1] ?? '';
    const family = m[2] as 'camt.052' | 'camt.053' | 'camt.054' | 'pain.002';
    if (message && message.format !== family) {
      return { kind: 'unrecognised', message: `namespace ${version} does not match message element <${message.name}>` };
    }
    if (family === 'pain.002') return { kind: 'pain.002', sourceFormat: version, namespaced: true };
    return { kind: 'camt', format: family, sourceFormat: version, namespaced: true };
  }
  if (!message) {
    return {
      kind: 'unrecognised',
      message: doc.found
        ? 'XML Document without a namespace or a known message element'
        : 'XML without an ISO 20022 Document',
    };
  }
  // No namespace: accepted only by message element, the version is unknown (the caller requires positive content).
  if (message.format === 'pain.002') return { kind: 'pain.002', sourceFormat: 'pain.002', namespaced: false };
  return { kind: 'camt', format: message.format, sourceFormat: message.format, namespaced: false };
}

/** `text` is already decoded; framing characters (SOH/ETX/SUB) may still be present. */
export function detectFormat(text: string): DetectedFormat {
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0xfeff || c === 32 || c === 9 || c === 10 || c === 13 || c === 1 || c === 3) i++;
    else break;
  }
  const head = text.slice(i, i + HEAD_LIMIT);
  if (head.startsWith('<')) return detectXml(head);
  // MT: a :20: tag at a line start, optionally after SWIFT blocks or a bank header line.
  const mt = /(?:^|[\n\r{])(?::20:|4:\s*\r?\n:20:)/.test(head) || /^:20:/m.test(head);
  if (!mt) return { kind: 'unrecognised', message: 'neither ISO 20022 XML nor an MT940/MT942 statement (no :20: tag)' };
  // The regular expressions need these substrings: a head without them (most files) is not scanned by them.
  const app = head.includes('{2:') ? /\{2:[IO](9\d\d)/.exec(head) : null;
  const interim = () => (head.includes(':34F:') || head.includes(':13D:')) && /^:(?:34F|13D):/m.test(head);
  if (app?.[1] === '942' || (!app && interim() && !/^:60[FM]:/m.test(head))) return { kind: 'mt', format: 'mt942' };
  if (app && app[1] !== '940' && app[1] !== '942')
    return { kind: 'unrecognised', message: `SWIFT MT${app[1]} is not a statement we parse` };
  return { kind: 'mt', format: 'mt940' };
}
