/** XML text escaping for element content and attribute values (both written with double quotes). */
const NEEDS = /[&<>"]/;

export function esc(value: string): string {
  if (!NEEDS.test(value)) return value;
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * For text that passed the charset or identifier checks: no bank character set contains `<`, `>` or `"`
 * (validation/charset.ts), so only `&` (Danish and German sets) can need escaping, and a memchr-fast
 * indexOf finds it. Everything else (codes, scheme names) goes through `esc`.
 */
export function escText(value: string): string {
  return value.indexOf('&') < 0 ? value : value.replace(/&/g, '&amp;');
}
