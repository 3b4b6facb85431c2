import { type TSchema, Type } from 'typebox';
import type { SettingsField } from '../../domain/banks/sftp-settings.ts';

/**
 * A request body object built from a domain field definition (src/domain/banks/sftp-settings.ts):
 * the route validates exactly the fields the set-up wizard names, with the same limits.
 */
export function settingsFieldsSchema(fields: readonly SettingsField[]) {
  const properties: Record<string, TSchema> = {};
  for (const f of fields) {
    const schema =
      f.type === 'integer'
        ? Type.Integer({
            ...(f.minimum !== undefined ? { minimum: f.minimum } : {}),
            ...(f.maximum !== undefined ? { maximum: f.maximum } : {}),
          })
        : Type.String({
            ...(f.minLength ? { minLength: f.minLength } : {}),
            ...(f.maxLength !== undefined ? { maxLength: f.maxLength } : {}),
          });
    properties[f.name] = f.required ? schema : Type.Optional(schema);
  }
  return Type.Object(properties, { additionalProperties: false });
}
