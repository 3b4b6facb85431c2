import type { AppContext } from '../app/context.ts';
import type { FxRatesProvider } from '../app/system/fx-rates.ts';

/** What the HTTP layer is handed by the composition root. */
export type HttpServices = { ctx: AppContext; fx: FxRatesProvider; version: string };
