import type { BankChannel } from './channel.ts';

/**
 * The demo bank's channel (sandbox): it takes every file at once. Its replies are not fetched from
 * anywhere: the service's demo-bank job writes them after DEMO_BANK_DELAY_MS and ingests them.
 */
export function createDemoChannel(): BankChannel {
  return {
    kind: 'demo',
    deliver: async (file) => ({ channel: 'demo', reference: `DEMO-${file.fileName}`, alreadyDelivered: false }),
    fetchInbound: async () => [],
    acknowledge: async () => {},
    close: async () => {},
  };
}
