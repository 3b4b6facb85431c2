import type {
  ChannelFactory,
  ChannelTarget,
  EbicsSession,
  WebServicesSession,
} from '../app/delivery/channel-factory.ts';
import { createDemoChannel, type DemoBankPort } from '../channels/demo.ts';
import { createEbicsChannel } from '../channels/ebics/channel.ts';
import { createEbicsClient } from '../channels/ebics/client.ts';
import { EbicsChannelError } from '../channels/ebics/errors.ts';
import { createFiWsChannel } from '../channels/fi-ws/channel.ts';
import { WsChannelError } from '../channels/fi-ws/errors.ts';
import { createSoapTransport } from '../channels/fi-ws/soap-transport.ts';
import { createWsClient } from '../channels/fi-ws/ws-client.ts';
import { createSftpChannel, type SftpChannelConfig } from '../channels/sftp.ts';
import { fileTypesOf, webServicesProfile } from '../domain/banks/connectivity.ts';
import { getProfile } from '../domain/conversion/index.ts';
import type { Logger } from '../platform/logger.ts';
import { trustedCas } from '../platform/outbound-http.ts';

/** Where a running bank simulator answers, and the CA its TLS certificate chains to. */
export type SimulatorEndpoints = { fileServiceUrl: string; certServiceUrl: string; caPem: string };

export type ChannelOptions = {
  allowPrivateTargets: boolean;
  logger: Logger;
  /** EXTRA_CA_CERTS: trusted besides the system roots for banks' TLS. */
  extraCaCerts?: string | undefined;
  /** The sandbox's bank simulators by bank key (a connection configured with `simulator: true` uses them). */
  simulators?: {
    endpoints(bankKey: string): SimulatorEndpoints | undefined;
    /** The sandbox's EBICS bank simulator of a bank: its URL and TLS CA. */
    ebics?(bankKey: string): { url: string; caPem: string } | undefined;
  };
  softwareId: string;
  now: () => Date;
  /** The demo bank (sandbox, src/simulators/demo-bank): what it received, and its answers to collect. */
  demoBank?: DemoBankPort;
};

/**
 * The concrete bank channels: the demo bank by its profile, SFTP by the connection's sealed channel
 * configuration ({kind: 'sftp', host, port, username, privateKey | password, hostKeySha256,
 * inboundDir, outboundDir, archiveDir}), Finnish web services ({kind: 'fi-ws', customerId, targetId,
 * senderId, fileServiceUrl, certServiceUrl, simulator}) with the connection's certificate. Private
 * network targets only when the deployment allows them, or for the sandbox's own simulators.
 */
export function bankChannels(options: ChannelOptions): ChannelFactory {
  const ca = trustedCas(options.extraCaCerts);

  function webServices(target: ChannelTarget): WebServicesSession {
    const profile = webServicesProfile(target.bankKey);
    const config = target.config ?? {};
    if (!profile) throw new WsChannelError('invalid_config', `${target.bankKey} has no web-services profile`, false);
    const customerId = typeof config['customerId'] === 'string' ? config['customerId'] : undefined;
    if (!customerId)
      throw new WsChannelError('invalid_config', 'the connection has no web-services customer id', false);
    const environment = target.environment === 'production' ? 'production' : 'test';
    const simulator = config['simulator'] === true ? options.simulators?.endpoints(target.bankKey) : undefined;
    if (config['simulator'] === true && !simulator) {
      throw new WsChannelError('invalid_config', `no ${target.bankKey} simulator runs in this deployment`, true);
    }
    const text = (key: string) => (typeof config[key] === 'string' ? (config[key] as string) : undefined);
    const fileServiceUrl = simulator?.fileServiceUrl ?? text('fileServiceUrl') ?? profile.fileService[environment];
    const certServiceUrl = simulator?.certServiceUrl ?? text('certServiceUrl') ?? profile.certService[environment];
    if (!fileServiceUrl || !certServiceUrl) {
      throw new WsChannelError(
        'invalid_config',
        `no ${environment} web-services endpoint is known for ${target.bankKey}; set fileServiceUrl and certServiceUrl in the connection settings`,
        false,
      );
    }
    const transport = createSoapTransport(
      simulator
        ? { policy: { allowPrivate: false, allowAddresses: ['127.0.0.1', '::1'] }, ca: [simulator.caPem] }
        : { policy: { allowPrivate: options.allowPrivateTargets }, ca },
    );
    const client = createWsClient({
      family: profile.family,
      customerId,
      senderId: text('senderId'),
      targetId: text('targetId') ?? profile.targetId,
      environment: environment === 'production' ? 'PRODUCTION' : 'TEST',
      fileServiceUrl,
      certServiceUrl,
      softwareId: options.softwareId,
      signature: profile.signature,
      compression: profile.compression,
      own: target.credentials,
      bankCertPem: target.bankCertPem,
      transport,
      now: options.now,
    });
    return { client, close: () => transport.close() };
  }

  /**
   * EBICS ({kind: 'ebics', hostId, partnerId, userId, url | simulator}): the subscriber's keys and the
   * bank's confirmed certificates from the connection, HTTPS through the SSRF guard.
   */
  function ebics(target: ChannelTarget): EbicsSession {
    const config = target.config ?? {};
    const text = (key: string) => (typeof config[key] === 'string' ? (config[key] as string) : undefined);
    const hostId = text('hostId');
    const partnerId = text('partnerId');
    const userId = text('userId');
    if (config['kind'] !== 'ebics' || !hostId || !partnerId || !userId) {
      throw new EbicsChannelError(
        'invalid_config',
        'the connection has no EBICS subscriber (host, partner and user id)',
        false,
      );
    }
    if (!target.ebics) throw new EbicsChannelError('invalid_config', 'the connection has no EBICS keys yet', false);
    const simulator = config['simulator'] === true ? options.simulators?.ebics?.(target.bankKey) : undefined;
    if (config['simulator'] === true && !simulator) {
      throw new EbicsChannelError(
        'invalid_config',
        `no ${target.bankKey} EBICS simulator runs in this deployment`,
        true,
      );
    }
    const url = simulator?.url ?? text('url');
    if (!url) throw new EbicsChannelError('invalid_config', `no EBICS URL is set for ${target.bankKey}`, false);
    const transport = createSoapTransport(
      simulator
        ? { policy: { allowPrivate: false, allowAddresses: ['127.0.0.1', '::1'] }, ca: [simulator.caPem] }
        : { policy: { allowPrivate: options.allowPrivateTargets }, ca },
    );
    const client = createEbicsClient({
      url,
      subscriber: { hostId, partnerId, userId },
      keys: target.ebics.keys,
      bank: target.ebics.bank,
      transport,
      now: options.now,
    });
    return { client, close: () => transport.close() };
  }

  return {
    open(target) {
      if (target.channel === 'EBICS' && target.config?.['kind'] === 'ebics') {
        const session = ebics(target);
        const painVersion = (getProfile(target.bankKey)?.painVersion ?? 'pain.001.001.09').split('.').pop() ?? '09';
        return { ...createEbicsChannel(session.client, { painVersion }), close: session.close };
      }
      if (target.channel === 'DEMO') {
        return createDemoChannel(options.demoBank, {
          platformId: target.platformId,
          companyId: target.companyId,
          bankKey: target.bankKey,
          environment: target.environment,
        });
      }
      if (target.channel === 'FI_WS' && target.config?.['kind'] === 'fi-ws') {
        const session = webServices(target);
        const fileTypes = fileTypesOf(target.bankKey);
        const profile = webServicesProfile(target.bankKey);
        if (!fileTypes || !profile) throw new Error(`${target.bankKey} has no web-services file types`);
        const channel = createFiWsChannel(session.client, {
          fileTypes,
          signature: profile.signature.signature,
          ownCertPem: target.credentials?.certPem,
        });
        return { ...channel, close: session.close };
      }
      if (target.config?.['kind'] === 'sftp') {
        const { kind: _kind, ...config } = target.config;
        return createSftpChannel({
          ...(config as unknown as SftpChannelConfig),
          allowPrivateNetwork: options.allowPrivateTargets,
          logger: options.logger,
        });
      }
      throw new Error(`no ${target.channel} channel is configured for ${target.bankKey}`);
    },
    webServices,
    ebics,
  };
}
