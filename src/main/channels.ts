import type { ChannelFactory } from '../app/delivery/channel-factory.ts';
import { createDemoChannel } from '../channels/demo.ts';

/** The concrete bank channels, chosen by the bank profile's channel and the connection's settings. */
export function bankChannels(): ChannelFactory {
  return {
    open(target) {
      if (target.channel === 'DEMO') return createDemoChannel();
      throw new Error(`no ${target.channel} channel is configured for ${target.bankKey}`);
    },
  };
}
