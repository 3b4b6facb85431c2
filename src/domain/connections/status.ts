/**
 * A bank connection's status (CHECK connections_status_check): host-to-host connections start
 * `pending-activation` and become `active` when activated (web services: certificate enrolled) or
 * configured (SFTP: settings complete); a renewal keeps them active. Converted-only banks need no
 * channel and are active from creation.
 */
export type ConnectionStatus = 'pending-activation' | 'active';
export type ConnectionEvent = 'activated' | 'configured' | 'certificate-renewed';

export function initialConnectionStatus(deliveryMode: string): ConnectionStatus {
  return deliveryMode === 'host-to-host' ? 'pending-activation' : 'active';
}

/** The one transition function of connection statuses. */
export function connectionTransition(from: ConnectionStatus, event: ConnectionEvent): ConnectionStatus {
  switch (event) {
    case 'activated':
    case 'configured':
      return 'active';
    case 'certificate-renewed':
      if (from !== 'active') throw new Error(`a ${from} connection has no certificate to renew`);
      return 'active';
  }
}
