import { type Html, html } from './html.ts';

/** What a form field says is wrong with it, by field name. */
export type FieldErrors = Readonly<Record<string, string>>;

/** The error line of a field (linked to it by aria-describedby), or nothing. */
export function fieldError(id: string, errors: FieldErrors, name: string): Html {
  const text = errors[name];
  return text ? html`<p class="field-error" id="${`${id}-error`}">${text}</p>` : html``;
}

/** The attributes that tie a field to its error: aria-invalid and aria-describedby, when it has one. */
export function invalidAttrs(id: string, errors: FieldErrors, name: string): Html {
  return errors[name] ? html` aria-invalid="true" aria-describedby="${`${id}-error`}"` : html``;
}

/**
 * A labelled input with its error under it. `extra` is fixed markup of the caller (required, pattern
 * ...), never a value from a request: values go through `value`, escaped.
 */
export function inputField(f: {
  id: string;
  name: string;
  label: string;
  type?: string;
  value?: string | number | undefined;
  errors: FieldErrors;
  extra?: Html;
}): Html {
  return html`<label for="${f.id}">${f.label}</label><input id="${f.id}" name="${f.name}" type="${f.type ?? 'text'}"${
    f.value !== undefined ? html` value="${f.value}"` : ''
  }${f.extra ?? ''}${invalidAttrs(f.id, f.errors, f.name)}>${fieldError(f.id, f.errors, f.name)}`;
}
