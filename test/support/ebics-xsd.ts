import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { SHARED_CORPUS } from './shared-corpus.ts';

/**
 * The official EBICS 3.0 schemas (../shared/corpus/xsd/ebics-H005, read in place) run by Debian's
 * xmllint. Tests that exchange EBICS messages validate each one; without ../shared or xmllint they
 * skip with `ebicsXsdMissing` as the reason.
 */
const DIR = path.join(SHARED_CORPUS, 'xsd', 'ebics-H005');
const XMLLINT = '/usr/bin/xmllint';

export const ebicsXsdMissing: string | false = !existsSync(path.join(DIR, 'ebics_H005.xsd'))
  ? `the EBICS H005 schemas are not at ${DIR} (a clone without ../shared): schema checks are skipped`
  : !existsSync(XMLLINT)
    ? 'xmllint is not installed (apt-get install libxml2-utils): EBICS schema checks are skipped'
    : false;

export type EbicsSchema = 'H005' | 'S002' | 'HEV';
const FILES: Record<EbicsSchema, string> = {
  H005: 'ebics_H005.xsd',
  S002: 'ebics_signature_S002.xsd',
  HEV: 'ebics_hev.xsd',
};

/** The schema a message's root belongs to. */
export function schemaOf(xml: string): EbicsSchema {
  if (/<(?:\w+:)?ebicsHEV(?:Request|Response)\b/.test(xml)) return 'HEV';
  if (/<(?:\w+:)?(?:SignaturePubKeyOrderData|UserSignatureData)\b/.test(xml)) return 'S002';
  return 'H005';
}

/** xmllint's complaints about a message (empty when it is valid against its schema). */
export function ebicsSchemaErrors(xml: string, schema: EbicsSchema = schemaOf(xml)): string[] {
  const r = spawnSync(XMLLINT, ['--noout', '--nonet', '--schema', path.join(DIR, FILES[schema]), '-'], {
    input: xml,
    encoding: 'utf8',
  });
  return r.status === 0 ? [] : r.stderr.split('\n').filter((l) => l.trim() !== '' && !l.endsWith(' validates'));
}
