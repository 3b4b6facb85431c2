/**
 * A browser as far as the consent flow needs one, over real HTTP: a cookie jar, form posts, and
 * redirects followed by hand (so each hop can be checked).
 */
export class Browser {
  private readonly cookies = new Map<string, string>();
  private readonly base: string;

  constructor(base: string) {
    this.base = base;
  }

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
    }
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return cookie === '' ? extra : { cookie, ...extra };
  }

  async get(pathOrUrl: string): Promise<Response> {
    const res = await fetch(new URL(pathOrUrl, this.base), { headers: this.headers(), redirect: 'manual' });
    this.remember(res);
    return res;
  }

  async postForm(path: string, fields: Record<string, string>): Promise<Response> {
    const res = await fetch(new URL(path, this.base), {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/x-www-form-urlencoded' }),
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
    this.remember(res);
    return res;
  }
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The hidden and filled fields of the page's form, unescaped. */
export function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1]!] = match[2]!.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!);
  }
  return fields;
}
