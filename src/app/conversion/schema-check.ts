import type { ValidationIssue } from '../../domain/conversion/index.ts';

/**
 * XSD validation of a generated file (`validate=true`): always our own schema model; the official
 * ISO 20022 XSDs too when XSD_DIR (or a known system location) has them. `ran` says which ran.
 */
export type SchemaCheck = { ran: Array<'schema-model' | 'official-xsd'>; issues: ValidationIssue[] };
export type SchemaChecker = (xml: string, painVersion: string) => Promise<SchemaCheck>;

/** Placeholder until the domain's schema model lands: reports that no validation ran. */
export function createSchemaChecker(_xsdDir: string | undefined): SchemaChecker {
  return async () => ({ ran: [], issues: [] });
}
