import type { ChannelFactory } from '../app/delivery/channel-factory.ts';
import { createDemoChannel } from '../channels/demo.ts';
import { createSftpChannel, type SftpChannelConfig } from '../channels/sftp.ts';
import type { Logger } from '../platform/logger.ts';

/**
 * The concrete bank channels: the demo bank by its profile, SFTP by the connection's sealed channel
 * configuration ({kind: 'sftp', host, port, username, privateKey | password, hostKeySha256,
 * inboundDir, outboundDir, archiveDir}). Private network targets only when the deployment allows them.
 */
export function bankChannels(options: { allowPrivateTargets: boolean; logger: Logger }): ChannelFactory {
  return {
    open(target) {
      if (target.channel === 'DEMO') return createDemoChannel();
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
  };
}
