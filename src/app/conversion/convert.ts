import {
  type ConvertSuccess,
  convertPayment,
  type ValidateResult,
  validatePayment,
} from '../../domain/conversion/index.ts';
import type { AppContext } from '../context.ts';
import { engineError, validationFailed } from './engine-errors.ts';
import type { SchemaCheck } from './schema-check.ts';

/**
 * Stateless conversion (POST /validate, POST /convert): no per-company bank settings are applied;
 * those belong to the journal's delivery path only.
 */
export function validateForBank(ctx: AppContext, raw: unknown, bankKey: string): ValidateResult {
  const result = validatePayment(raw, bankKey, { now: ctx.clock.now() });
  if (!result.ok) throw engineError(result.error);
  return result.value;
}

export type ConvertOutcome = ConvertSuccess & { schemaValidation?: SchemaCheck };

export async function convertForBank(
  ctx: AppContext,
  raw: unknown,
  bankKey: string,
  options: { painVersion?: string | undefined; validate?: boolean | undefined },
): Promise<ConvertOutcome> {
  const result = convertPayment(raw, bankKey, {
    now: ctx.clock.now(),
    ...(options.painVersion !== undefined ? { painVersion: options.painVersion } : {}),
  });
  if (!result.ok) throw engineError(result.error);
  const converted = result.value;
  if (!converted.ok) throw validationFailed(converted.issues, { unknownFieldsDropped: converted.unknownFieldsDropped });
  if (!options.validate) return converted;
  const schemaValidation = await ctx.schemaCheck(converted.xml, converted.painVersion);
  if (schemaValidation.issues.length > 0) {
    throw validationFailed(schemaValidation.issues, { schemaValidation: { ran: schemaValidation.ran } });
  }
  return { ...converted, schemaValidation };
}
