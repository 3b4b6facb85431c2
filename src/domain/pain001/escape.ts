/** XML text escaping for element content and attribute values (both written with double quotes). */
const NEEDS = /[&<>"]/;

export function esc(value: string): string {
  if (!NEEDS.test(value)) return value;
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
