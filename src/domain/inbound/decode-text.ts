import iconv from 'iconv-lite';
import type { EncodingName } from './types.ts';

/**
 * Bytes to text. Order of evidence: a BOM, then an XML encoding declaration, then strict UTF-8, then
 * a byte-statistics guess between the legacy code pages banks still use (Polish/Czech Windows-1250,
 * Hungarian/Polish ISO-8859-2, Western Windows-1252, whose printable range is a superset of Latin-1, and
 * the DOS Latin-2 code page 852 that Polish, Czech and Hungarian banking software still exports).
 * German umlauts sit on the same bytes in the first three, so a wrong guess there costs nothing; a
 * guessed code page is reported (`guessed`), and the parsers warn with it.
 */
export type DecodedText = { text: string; encoding: EncodingName; guessed?: true };

const DECLARED: Record<string, EncodingName> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'windows-1250': 'windows-1250',
  cp1250: 'windows-1250',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
  'iso-8859-1': 'windows-1252',
  'iso8859-1': 'windows-1252',
  latin1: 'windows-1252',
  'us-ascii': 'utf-8',
  'iso-8859-2': 'iso-8859-2',
  'iso8859-2': 'iso-8859-2',
  ibm852: 'cp852',
  cp852: 'cp852',
  latin2: 'iso-8859-2',
  'utf-16': 'utf-16le',
};

function decode(bytes: Uint8Array, encoding: EncodingName, fatal: boolean): string | undefined {
  // Code page 852 is no WHATWG encoding (TextDecoder has none): iconv-lite's table.
  if (encoding === 'cp852') return iconv.decode(bytes, 'cp852');
  try {
    return new TextDecoder(encoding === 'iso-646-se' ? 'utf-8' : encoding, { fatal, ignoreBOM: false }).decode(bytes);
  } catch {
    return undefined;
  }
}

function declaredEncoding(bytes: Uint8Array): string | undefined {
  const n = Math.min(bytes.length, 256);
  let head = '';
  for (let i = 0; i < n; i++) head += String.fromCharCode(bytes[i] as number);
  if (!head.trimStart().startsWith('<?xml')) return undefined;
  const m = /^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head);
  return m?.[1]?.toLowerCase();
}

// Bytes that are letters only in Windows-1250 (Ś Ź ś ź Ą ą ł Ł ż in the 0x8C..0xBF block).
const CP1250_MARKERS = new Set([0x8c, 0x8f, 0x9c, 0x9f, 0xa5, 0xb9, 0xb3, 0xa3, 0xbf]);
// Bytes that are Polish/Hungarian letters in ISO-8859-2 but rare symbols in Latin-1 (Ą ą Ś ś Ź ź Ł ł ő ű Ő Ű).
const LATIN2_MARKERS = new Set([0xa1, 0xb1, 0xa6, 0xb6, 0xac, 0xbc, 0xa3, 0xb3, 0xf5, 0xfb, 0xd5, 0xdb]);

// Lower-case letters of code page 852 (Hungarian á é í ó ö ő ú ü ű, Polish ą ć ę ł ń ś ź ż, Czech č ď ě
// ň ř š ť ů ž) and of Windows-1250/1252 and ISO-8859-2 (0xDF-0xFF, plus 1250's š ś ž ź ą ł ż).
const CP852_LETTERS = new Set([
  0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8b, 0x8c, 0x94, 0x96, 0x98, 0x9c, 0x9f, 0xa0, 0xa1, 0xa2,
  0xa3, 0xa5, 0xa7, 0xa9, 0xab, 0xbe, 0xd4, 0xd8, 0xe4, 0xe5, 0xe7, 0xec, 0xfb, 0xfd,
]);
const ANSI_EXTRA_LETTERS = new Set([0x9a, 0x9c, 0x9e, 0x9f, 0xb1, 0xb3, 0xb9, 0xbe, 0xbf]);

const isLowerAscii = (b: number | undefined) => b !== undefined && b >= 0x61 && b <= 0x7a;

/**
 * Whether the bytes read as code page 852 rather than a Windows/ISO code page: inside lower-case words (a
 * lower-case ASCII letter on either side; upper-case text such as "SPÓŁKA" says nothing, 852's lower-case
 * letters sitting on ISO-8859-2's capitals), the high bytes are 852's lower-case letters (0x80-0xAF mostly: "tutal\xa0s" is
 * "átutalás") more often than the Windows/ISO ones (0xDF-0xFF), where 0xA0 is a no-break space.
 */
function looksCp852(bytes: Uint8Array): boolean {
  let dos = 0;
  let ansi = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b < 0x80 || !(isLowerAscii(bytes[i - 1]) || isLowerAscii(bytes[i + 1]))) continue;
    if (CP852_LETTERS.has(b)) dos++;
    if (b >= 0xdf || ANSI_EXTRA_LETTERS.has(b)) ansi++;
  }
  return dos >= 2 && dos > 2 * ansi;
}

function guessLegacy(bytes: Uint8Array): EncodingName {
  let c1 = 0; // 0x80..0x9F: printable in Windows code pages, control characters in ISO-8859
  let cp1250 = 0;
  let latin2 = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b < 0x80) continue;
    if (b < 0xa0) c1++;
    if (CP1250_MARKERS.has(b)) cp1250++;
    if (LATIN2_MARKERS.has(b)) latin2++;
  }
  if (looksCp852(bytes)) return 'cp852';
  if (c1 > 0) return cp1250 > 0 ? 'windows-1250' : 'windows-1252';
  if (latin2 > 0) return 'iso-8859-2';
  return 'windows-1252';
}

export function decodeBytes(bytes: Uint8Array): DecodedText | { error: string } {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    const text = decode(bytes.subarray(3), 'utf-8', true);
    return text === undefined
      ? { error: 'UTF-8 byte order mark but invalid UTF-8 bytes' }
      : { text, encoding: 'utf-8' };
  }
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
    const text = decode(bytes.subarray(2), 'utf-16le', true);
    return text === undefined ? { error: 'invalid UTF-16LE text' } : { text, encoding: 'utf-16le' };
  }
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    const text = decode(bytes.subarray(2), 'utf-16be', true);
    return text === undefined ? { error: 'invalid UTF-16BE text' } : { text, encoding: 'utf-16be' };
  }
  const declared = declaredEncoding(bytes);
  if (declared !== undefined) {
    const enc = DECLARED[declared];
    if (!enc) return { error: `unsupported XML encoding "${declared}"` };
    if (enc !== 'utf-8') {
      const text = decode(bytes, enc, false);
      return text === undefined ? { error: `cannot decode as ${enc}` } : { text, encoding: enc };
    }
  }
  const utf8 = decode(bytes, 'utf-8', true);
  if (utf8 !== undefined) return { text: utf8, encoding: 'utf-8' };
  // Declared UTF-8 but not UTF-8: real exports do this; fall back to the legacy guess rather than refuse.
  const enc = guessLegacy(bytes);
  const text = decode(bytes, enc, false);
  return text === undefined ? { error: `cannot decode as ${enc}` } : { text, encoding: enc, guessed: true };
}
