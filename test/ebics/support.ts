import { createSoapTransport, type SoapTransport } from '../../src/channels/fi-ws/soap-transport.ts';
import { ebicsSchemaErrors, ebicsXsdMissing } from '../support/ebics-xsd.ts';

/**
 * A transport to the EBICS simulator on loopback that keeps every exchange, so a test can check that
 * each request and response it saw is valid against the official H005 schemas.
 */
export function recordingTransport(caPem: string): SoapTransport & { exchanged: string[] } {
  const inner = createSoapTransport({
    policy: { allowPrivate: false, allowAddresses: ['127.0.0.1', '::1'] },
    ca: [caPem],
  });
  const exchanged: string[] = [];
  return {
    exchanged,
    async post(url, xml) {
      exchanged.push(xml);
      const res = await inner.post(url, xml);
      if (res.status === 200) exchanged.push(res.body);
      return res;
    },
    close: () => inner.close(),
  };
}

/** The simulator's schema check of every request, when the schemas are at hand. */
export const simulatorValidator = ebicsXsdMissing ? undefined : (xml: string) => ebicsSchemaErrors(xml);

/** Every exchanged message that is not schema-valid, with its complaints (none when the schemas are missing). */
export function invalidMessages(exchanged: string[]): Array<{ xml: string; errors: string[] }> {
  if (ebicsXsdMissing) return [];
  return exchanged
    .map((xml) => ({ xml: xml.slice(0, 300), errors: ebicsSchemaErrors(xml) }))
    .filter((m) => m.errors.length > 0);
}
