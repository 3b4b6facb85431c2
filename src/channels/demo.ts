import type { BankChannel, OutboundFile } from './channel.ts';
import { permanentChannelError } from './errors.ts';

/** Where the demo bank keeps what it received and schedules its answers (src/app/delivery/demo-bank-inbox.ts). */
export type ReceivedFile = OutboundFile & { platformId: string; companyId: string };
export type DemoBankInbox = {
  receive(file: ReceivedFile): Promise<{ alreadyReceived: boolean }>;
  /** Several files in one commit, in order. */
  receiveMany(files: ReceivedFile[]): Promise<{ alreadyReceived: boolean }[]>;
};

/**
 * The demo bank's channel (sandbox), a bank like any other behind the channel interface: `deliver`
 * hands the file to the bank's inbox, which recognises a repeated file name and answers after
 * DEMO_BANK_DELAY_MS with a pain.002 and a camt.053 that go through the same ingest as any bank's
 * files. Its replies are written by the bank, so there is nothing to fetch. A delivery batch is
 * handed over at once (`deliverMany`: one commit at the bank for the batch).
 */
export function createDemoChannel(
  inbox: DemoBankInbox | undefined,
  scope: { platformId: string; companyId: string },
): BankChannel {
  return {
    kind: 'demo',
    deliver: async (file) => {
      if (!inbox) throw permanentChannelError('not_configured', 'the demo bank runs only in a sandbox deployment');
      const { alreadyReceived } = await inbox.receive({ ...file, ...scope });
      return { channel: 'demo', reference: `DEMO-${file.fileName}`, alreadyDelivered: alreadyReceived };
    },
    deliverMany: async (files) => {
      if (!inbox) throw permanentChannelError('not_configured', 'the demo bank runs only in a sandbox deployment');
      const received = await inbox.receiveMany(files.map((file) => ({ ...file, ...scope })));
      return files.map((file, i) => ({
        channel: 'demo',
        reference: `DEMO-${file.fileName}`,
        alreadyDelivered: received[i]!.alreadyReceived,
      }));
    },
    fetchInbound: async () => [],
    acknowledge: async () => {},
    close: async () => {},
  };
}
