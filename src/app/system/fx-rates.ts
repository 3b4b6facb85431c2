import type { Logger } from '../../platform/logger.ts';
import { FX_SNAPSHOT } from './fx-snapshot.ts';

export type FxRates = { base: string; rates: Record<string, number>; asOf: string | null };

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Reads a rates document: JSON `{base, rates, asOf|date}` or the ECB daily XML
 * (`<Cube time="..."><Cube currency="USD" rate="1.08"/>...`).
 */
export function parseRatesDocument(text: string): FxRates | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const doc = JSON.parse(trimmed) as { base?: unknown; rates?: unknown; asOf?: unknown; date?: unknown };
      if (doc.base !== 'EUR' || typeof doc.rates !== 'object' || doc.rates === null) return undefined;
      const rates: Record<string, number> = { EUR: 1 };
      for (const [code, rate] of Object.entries(doc.rates)) {
        if (/^[A-Z]{3}$/.test(code) && typeof rate === 'number' && rate > 0) rates[code] = rate;
      }
      const asOf = typeof doc.asOf === 'string' ? doc.asOf : typeof doc.date === 'string' ? doc.date : null;
      return { base: 'EUR', rates, asOf };
    } catch {
      return undefined;
    }
  }
  const time = /<Cube\s+time=["'](\d{4}-\d{2}-\d{2})["']/.exec(trimmed)?.[1];
  const rates: Record<string, number> = { EUR: 1 };
  for (const m of trimmed.matchAll(/<Cube\s+currency=["']([A-Z]{3})["']\s+rate=["']([0-9.]+)["']/g)) {
    rates[m[1]!] = Number(m[2]);
  }
  return time && Object.keys(rates).length > 1 ? { base: 'EUR', rates, asOf: time } : undefined;
}

/** Holds the current rates: the bundled snapshot, replaced daily from `sourceUrl` when configured. */
export function fxRatesProvider(sourceUrl: string | undefined, logger: Logger) {
  let current: FxRates = FX_SNAPSHOT;
  let timer: NodeJS.Timeout | undefined;

  async function refresh(): Promise<void> {
    if (!sourceUrl) return;
    try {
      const response = await fetch(sourceUrl, { signal: AbortSignal.timeout(10_000) });
      const parsed = response.ok ? parseRatesDocument(await response.text()) : undefined;
      if (parsed) current = parsed;
      else logger.warn({ status: response.status }, 'fx rates source gave no usable rates');
    } catch (err) {
      logger.warn({ err }, 'fx rates refresh failed; keeping the previous rates');
    }
  }

  return {
    current: () => current,
    start() {
      if (!sourceUrl) return;
      void refresh();
      timer = setInterval(() => void refresh(), DAY_MS);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}

export type FxRatesProvider = ReturnType<typeof fxRatesProvider>;
