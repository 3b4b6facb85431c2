import { type EbicsState, ebicsTransition } from '../../domain/lifecycle/index.ts';
import { AppError } from '../errors.ts';

/** An EBICS onboarding move asked of the state machine (src/domain/lifecycle); 409 when it is not one. */
export function ebicsMove(from: EbicsState | null, to: EbicsState): EbicsState {
  const moved = ebicsTransition(from ?? 'new', to);
  if (!moved.ok) {
    throw new AppError('conflict', `the EBICS subscriber is ${from ?? 'new'}: ${moved.reason}`, {
      ebicsState: from ?? 'new',
    });
  }
  return moved.to;
}
