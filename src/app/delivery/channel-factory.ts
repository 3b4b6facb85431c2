import type { BankChannel } from '../../channels/channel.ts';

/**
 * Opens the channel of a connection. The composition root (src/main) provides the concrete
 * channels; use cases only see this seam, so tests can put a failing or recording channel in.
 */
export type ChannelTarget = {
  bankKey: string;
  /** The bank profile's channel kind (DEMO, SFTP, WS, EBICS ...). */
  channel: string;
  /** The connection's decrypted channel configuration (endpoint, credentials), when it has one. */
  config: Record<string, unknown> | null;
};

export type ChannelFactory = { open(target: ChannelTarget): BankChannel };
