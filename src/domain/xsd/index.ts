import type { PainVersion } from '../banks/types.ts';
import type { ValidationIssue } from '../validation/issue.ts';
import { checkAgainstModel } from './check-model.ts';
import { validateWithOfficialXsd } from './official-xsd.ts';

/**
 * `validate=true`: our schema model always runs; the official XSD runs too when its text is given.
 * `ran` says which did. Problems come back as ValidationIssue (code `schema_invalid`, level generic).
 */
export type SchemaValidation = {
  valid: boolean;
  ran: Array<'schema-model' | 'official-xsd'>;
  issues: ValidationIssue[];
};

export { checkAgainstModel } from './check-model.ts';

export async function validateGeneratedXml(
  xml: string,
  painVersion: PainVersion,
  bank: string,
  officialXsdText?: string,
): Promise<SchemaValidation> {
  const issues: ValidationIssue[] = [];
  const ran: SchemaValidation['ran'] = ['schema-model'];
  for (const p of checkAgainstModel(xml, painVersion)) {
    issues.push({
      code: 'schema_invalid',
      level: 'generic',
      severity: 'error',
      message: `schema model: ${p.message}`,
      path: p.path,
      bank,
    });
  }
  if (officialXsdText !== undefined) {
    ran.push('official-xsd');
    const r = await validateWithOfficialXsd(xml, officialXsdText);
    for (const e of r.errors) {
      issues.push({
        code: 'schema_invalid',
        level: 'generic',
        severity: 'error',
        message: `official XSD: ${e.message}`,
        path: e.line === null ? '' : `line ${e.line}`,
        bank,
      });
    }
  }
  return { valid: issues.length === 0, ran, issues };
}
