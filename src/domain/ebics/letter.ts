import { X509Certificate } from 'node:crypto';
import { certificateHash, formatHash, VERSIONS } from './crypto.ts';
import { esc } from './xml.ts';

/**
 * The initialisation letter (INI-Brief): what the bank compares with the keys INI and HIA sent
 * before it unlocks the subscriber. One page per certificate in the layout German banks print (the DK
 * template): bank (host id), subscriber, customer, order, key version, the certificate's subject,
 * serial number and validity, its SHA-256 hash in hex pairs, and date and signature lines. Printable
 * HTML with no script and no external resource.
 */
export type LetterInput = {
  hostId: string;
  partnerId: string;
  userId: string;
  companyName: string;
  bankName: string;
  createdAt: string;
  certificates: { signature: string; authentication: string; encryption: string };
};

const KEYS = [
  { key: 'signature', order: 'INI', version: VERSIONS.signature, title: 'Electronic signature (bank-technical)' },
  { key: 'authentication', order: 'HIA', version: VERSIONS.authentication, title: 'Authentication' },
  { key: 'encryption', order: 'HIA', version: VERSIONS.encryption, title: 'Encryption' },
] as const;

export function initialisationLetter(input: LetterInput): string {
  const date = input.createdAt.slice(0, 10);
  const time = input.createdAt.slice(11, 19);
  const pages = KEYS.map(({ key, order, version, title }) => {
    const pem = input.certificates[key];
    const cert = new X509Certificate(pem);
    const hash = formatHash(certificateHash(pem));
    const row = (label: string, value: string) => `<tr><th>${esc(label)}</th><td>${esc(value)}</td></tr>`;
    return (
      `<section class="letter"><h1>EBICS initialisation letter (${order})</h1><p class="sub">${esc(title)}, ${version}</p><table>` +
      row('Date', date) +
      row('Time', `${time} UTC`) +
      row('Recipient', `${input.bankName} (host ID ${input.hostId})`) +
      row('User ID', input.userId) +
      row('Partner ID', input.partnerId) +
      row('Customer', input.companyName) +
      row('Order', order) +
      row('Version', version) +
      row('Certificate subject', cert.subject.replace(/\n/g, ', ')) +
      row('Serial number', cert.serialNumber) +
      row(
        'Valid',
        `${new Date(cert.validFrom).toISOString().slice(0, 10)} to ${new Date(cert.validTo).toISOString().slice(0, 10)}`,
      ) +
      `</table><h2>Hash of the certificate (SHA-256)</h2><pre class="hash">${hash.map(esc).join('\n')}</pre>` +
      '<p>I confirm that the above key was sent to the bank under my user ID.</p>' +
      '<div class="sign"><span>Place, date</span><span>Signature of the subscriber</span></div></section>'
    );
  });
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
    `<title>EBICS initialisation letter ${esc(input.userId)} at ${esc(input.hostId)}</title>` +
    '<style>body{font-family:sans-serif;margin:2em}.letter{page-break-after:always;max-width:40em;margin-bottom:3em}' +
    'th{text-align:left;padding-right:1em;font-weight:normal;color:#444}.hash{font-size:1.1em;letter-spacing:.05em}' +
    '.sign{display:flex;gap:6em;margin-top:4em}.sign span{border-top:1px solid #000;padding-top:.3em;min-width:12em}</style>' +
    `</head><body>${pages.join('')}</body></html>`
  );
}
