import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The API's load as the workers of the same process see it (ROLE=all, docs/adr/0083). One event loop
 * and two cores carry both; a payment costs the workers (delivery, the bank's answers, their ingest and
 * reconciliation, webhooks) more than ten times what its submit costs the API, so while clients send a
 * batch the workers would take most of the machine and the submits would queue behind them. The HTTP
 * app counts its requests in flight; a worker about to start a cycle or a batch first waits while the
 * API is saturated, up to YIELD_MAX_MS, then runs it anyway: the workers slow down during a burst and
 * catch up after it, never stop.
 */
export type ApiLoad = {
  /** A request arrived; `done` when its response has ended or its connection closed. */
  begin(): () => void;
  /** Whether the API is saturated now: SATURATED_IN_FLIGHT requests in flight, or were within HOLD_MS. */
  saturated(): boolean;
  /** Resolves once the API is not saturated, or after YIELD_MAX_MS. */
  yieldToApi(): Promise<void>;
};

/** Requests in flight at which the event loop is the API's bottleneck (a client with a few connections is not). */
const SATURATED_IN_FLIGHT = 4;
/** Keep-alive clients send their next request a moment after the last response: the burst lasts through the gap. */
const HOLD_MS = 50;
/** The longest a worker defers one cycle or batch: its progress while the API stays saturated. */
const YIELD_MAX_MS = 2_000;
const STEP_MS = 5;

export function apiLoad(
  now: () => number = () => performance.now(),
  wait: (ms: number) => Promise<unknown> = sleep,
): ApiLoad {
  let inFlight = 0;
  let busyUntil = 0;
  const saturated = () => inFlight >= SATURATED_IN_FLIGHT || now() < busyUntil;
  return {
    begin() {
      inFlight++;
      if (inFlight >= SATURATED_IN_FLIGHT) busyUntil = now() + HOLD_MS;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        if (inFlight >= SATURATED_IN_FLIGHT) busyUntil = now() + HOLD_MS;
        inFlight--;
      };
    },
    saturated,
    async yieldToApi() {
      const until = now() + YIELD_MAX_MS;
      while (saturated() && now() < until) await wait(STEP_MS);
    },
  };
}
