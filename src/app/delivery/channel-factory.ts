import type { BankChannel } from '../../channels/channel.ts';
import type { BankCertificates, EbicsClient, SubscriberKeys } from '../../channels/ebics/client.ts';
import type { WsClient } from '../../channels/fi-ws/ws-client.ts';

/**
 * Opens the channel of a connection. The composition root (src/main) provides the concrete
 * channels; use cases only see this seam, so tests can put a failing or recording channel in.
 */
export type ChannelTarget = {
  /** The connection's company: the demo bank files what it receives under it. */
  platformId: string;
  companyId: string;
  bankKey: string;
  /** The bank profile's channel kind (DEMO, SFTP, FI_WS, EBICS ...). */
  channel: string;
  environment: string;
  /** The connection's decrypted channel configuration (endpoint, credentials), when it has one. */
  config: Record<string, unknown> | null;
  /** Web services: the connection's own certificate and private key, once activated. */
  credentials?: { certPem: string; privateKeyPem: string } | undefined;
  /** Web services: the bank's signing certificate pinned for the connection. */
  bankCertPem?: string | undefined;
  /** EBICS: the subscriber's key pairs, and the bank's certificates once an admin confirmed them. */
  ebics?: { keys: SubscriberKeys; bank?: BankCertificates | undefined } | undefined;
};

export type WebServicesSession = { client: WsClient; close(): Promise<void> };

export type EbicsSession = { client: EbicsClient; close(): Promise<void> };

export type ChannelFactory = {
  open(target: ChannelTarget): BankChannel;
  /** The Finnish web-services client of a connection: certificate service (activation, renewal) and file service. */
  webServices(target: ChannelTarget): WebServicesSession;
  /** The EBICS 3.0 client of a connection: onboarding (HEV, INI, HIA, HPB) and orders. */
  ebics(target: ChannelTarget): EbicsSession;
};
