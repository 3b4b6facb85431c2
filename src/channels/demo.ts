import type { BankChannel, InboundFile, OutboundFile } from './channel.ts';
import { permanentChannelError } from './errors.ts';

/** Which of the demo bank's customers a channel speaks for: a company's connection to a bank key. */
export type DemoBankCustomer = { platformId: string; companyId: string; bankKey: string; environment: string };

/**
 * The bank side the demo channel talks to (src/simulators/demo-bank): it takes files in, recognising
 * a repeated file name, and hands out the files it wrote in answer (pain.002, camt.053) until they
 * are acknowledged, as a bank's SFTP outbox would.
 */
export type DemoBankPort = {
  /** Several files in one commit at the bank, in order. */
  receiveMany(customer: DemoBankCustomer, files: OutboundFile[]): Promise<{ alreadyReceived: boolean }[]>;
  /** The answers due now that no other pickup holds (a lease: unacknowledged, they come again later). */
  collect(customer: DemoBankCustomer): Promise<InboundFile[]>;
  /** The service took these files: the bank hands them out no more. */
  acknowledge(customer: DemoBankCustomer, files: InboundFile[]): Promise<void>;
};

/**
 * The demo bank's channel (sandbox), a bank like any other behind the channel interface: `deliver`
 * hands the file to the bank, which recognises a repeated file name and, DEMO_BANK_DELAY_MS later,
 * has a pain.002 and a camt.053 for it in its outbox; the pickup fetches them as it fetches any
 * bank's files (`fetchInbound`, then `acknowledge` what it journaled). A delivery batch is handed
 * over at once (`deliverMany`: one commit at the bank), and a pickup acknowledges at once too.
 */
export function createDemoChannel(bank: DemoBankPort | undefined, customer: DemoBankCustomer): BankChannel {
  const theBank = (): DemoBankPort => {
    if (!bank) throw permanentChannelError('not_configured', 'the demo bank runs only in a sandbox deployment');
    return bank;
  };
  const receipt = (file: OutboundFile, alreadyDelivered: boolean) => ({
    channel: 'demo',
    reference: `DEMO-${file.fileName}`,
    alreadyDelivered,
  });
  return {
    kind: 'demo',
    deliver: async (file) => {
      const [received] = await theBank().receiveMany(customer, [file]);
      return receipt(file, received!.alreadyReceived);
    },
    deliverMany: async (files) => {
      const received = await theBank().receiveMany(customer, files);
      return files.map((file, i) => receipt(file, received[i]!.alreadyReceived));
    },
    fetchInbound: () => theBank().collect(customer),
    acknowledge: (file) => theBank().acknowledge(customer, [file]),
    acknowledgeMany: (files) => theBank().acknowledge(customer, files),
    close: async () => {},
  };
}
