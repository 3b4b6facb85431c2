import { type ConnectionStatus, connectionTransition } from '../../domain/lifecycle/index.ts';

/**
 * A connection's move to `active` (activation, SFTP settings, renewal), asked of the state machine
 * (src/domain/lifecycle): the writer persists it with a conditional update on the status it read.
 */
export function activeFrom(from: ConnectionStatus): { from: ConnectionStatus; to: ConnectionStatus } {
  const moved = connectionTransition(from, 'active');
  if (!moved.ok) throw new Error(moved.reason);
  return { from, to: moved.to };
}

/** Where a new connection starts: host-to-host ones wait for activation, converted-only ones need none. */
export function initialStatus(deliveryMode: string): ConnectionStatus {
  return deliveryMode === 'host-to-host' ? 'pending-activation' : 'active';
}
