import { unzipSync } from 'fflate';
import { type Btf, DOWNLOADS, sctUpload } from '../../domain/ebics/btf.ts';
import type { BankChannel, InboundFile } from '../channel.ts';
import type { EbicsClient } from './client.ts';

/**
 * The EBICS bank channel (DESIGN.md, EBICS 3.0): delivery is a BTU of the pain.001 with the bank
 * profile's Business Transaction Format (SCT, pain.001 in its version); inbound is a BTD of each
 * format (camt.053, camt.052, camt.054, pain.002: a ZIP container of every file the bank holds). A
 * download's receipt is sent only when every file of it was acknowledged, that is committed to
 * the journal by the pickup: a crash or a failed file before that leaves the transaction unconfirmed,
 * the bank offers the data again, and the journal's content digest keeps it from being taken twice.
 */
/*
 * HAC (the customer acknowledgement) is not among them: it is a pain.002.001.03 customer protocol that
 * the journal's ingest refuses as "not a payment status report", so taking it here would leave it
 * unconfirmed and downloaded on every poll. The client downloads it (EbicsClient.download('HAC')).
 */
const FORMATS: Array<{ what: Btf; label: string }> = [
  { what: DOWNLOADS.status, label: 'pain.002' },
  { what: DOWNLOADS.statement, label: 'camt.053' },
  { what: DOWNLOADS.report, label: 'camt.052' },
  { what: DOWNLOADS.notification, label: 'camt.054' },
];

function filesOf(data: Buffer, transactionId: string, label: string): InboundFile[] {
  if (data.subarray(0, 2).toString('latin1') !== 'PK')
    return [{ name: `${transactionId}/${label}.xml`, content: data }];
  const entries = unzipSync(new Uint8Array(data));
  return Object.keys(entries)
    .sort()
    .map((name) => ({ name: `${transactionId}/${name}`, content: entries[name]! }));
}

/**
 * BTU uploads under way at once per channel session (docs/adr/0074): each is an EBICS transaction of
 * its own (own transaction id, nonces, transaction key), which banks accept in parallel; as many as
 * the transport keeps connections to the bank.
 */
export const EBICS_UPLOADS_IN_FLIGHT = 4;

export function createEbicsChannel(client: EbicsClient, options: { painVersion: string }): BankChannel {
  /** Open download transactions and the names of their files not yet acknowledged. */
  const pending = new Map<string, Set<string>>();

  return {
    kind: 'ebics',
    deliveriesInFlight: EBICS_UPLOADS_IN_FLIGHT,
    async deliver(file) {
      const btf = sctUpload(options.painVersion);
      const upload = await client.upload(Buffer.from(file.content, 'utf8'), btf, file.fileName);
      return {
        channel: 'ebics',
        reference: upload.orderId ?? upload.transactionId,
        alreadyDelivered: false,
        evidence: {
          protocol: client.protocol,
          orderType: 'BTU',
          businessTransactionFormat: {
            service: btf.serviceName,
            message: btf.messageName,
            version: btf.messageVersion,
          },
          orderId: upload.orderId,
          transactionId: upload.transactionId,
          segments: upload.segments,
          electronicSignature: 'A006',
          encryption: 'E002',
          responseSignature: 'X002 verified against the confirmed bank certificate',
        },
      };
    },
    async fetchInbound() {
      const out: InboundFile[] = [];
      for (const { what, label } of FORMATS) {
        const got = await client.download(what);
        if (!got) continue;
        const files = filesOf(got.data, got.transactionId, label);
        if (files.length === 0) {
          await client.receipt(got.transactionId, 0);
          continue;
        }
        pending.set(got.transactionId, new Set(files.map((f) => f.name)));
        out.push(...files);
      }
      return out;
    },
    async acknowledge(file) {
      const transactionId = file.name.split('/')[0] ?? '';
      const open = pending.get(transactionId);
      if (!open) return;
      open.delete(file.name);
      if (open.size > 0) return;
      pending.delete(transactionId);
      await client.receipt(transactionId, 0);
    },
    async close() {
      // Downloads not wholly committed are left unconfirmed: the bank offers their data again.
      pending.clear();
    },
  };
}
