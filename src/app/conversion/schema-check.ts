import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type PainVersion, type ValidationIssue, validateGeneratedXml } from '../../domain/conversion/index.ts';

/**
 * XSD validation of a generated file (`validate=true`): always our own schema model; the official
 * ISO 20022 XSDs too when XSD_DIR (or a known system location) has them. `ran` says which ran.
 */
export type SchemaCheck = { ran: Array<'schema-model' | 'official-xsd'>; issues: ValidationIssue[] };
export type SchemaChecker = (xml: string, painVersion: string) => Promise<SchemaCheck>;

/**
 * Finds the official XSD for a pain version in XSD_DIR: a file named `<version>.xsd`, or ending in
 * `__<version>.xsd` / `_<version>.xsd` as the corpus names its copies. Read once, then cached.
 */
function officialXsdLoader(xsdDir: string | undefined): (painVersion: string) => string | undefined {
  const cache = new Map<string, string | undefined>();
  let names: string[] | undefined;
  return (painVersion) => {
    if (xsdDir === undefined) return undefined;
    if (cache.has(painVersion)) return cache.get(painVersion);
    try {
      names ??= readdirSync(xsdDir);
    } catch {
      names = [];
    }
    const wanted = `${painVersion}.xsd`;
    const file = names.find((n) => n === wanted || n.endsWith(`_${wanted}`));
    const text = file ? readFileSync(path.join(xsdDir, file), 'utf8') : undefined;
    cache.set(painVersion, text);
    return text;
  };
}

export function createSchemaChecker(xsdDir: string | undefined): SchemaChecker {
  const officialXsd = officialXsdLoader(xsdDir);
  return async (xml, painVersion) => {
    const result = await validateGeneratedXml(xml, painVersion as PainVersion, '', officialXsd(painVersion));
    return { ran: result.ran, issues: result.issues };
  };
}
