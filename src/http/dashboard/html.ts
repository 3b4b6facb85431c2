import { escapeHtml } from '../pages/html.ts';

/**
 * HTML built by a tagged template that escapes every interpolated value unless it is already Html
 * (the result of another `html` template). A page cannot forget to escape: a plain string, number or
 * a value read from the database always goes through escapeHtml, in element content and in
 * double-quoted attributes alike (templates quote every attribute).
 */
export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

type Part = Html | string | number | bigint | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === null || part === undefined || part === false || part === true) return '';
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i] as Part) + (strings[i + 1] ?? '');
  return new Html(out);
}

/**
 * Markup made by a library from data it encodes itself (the QR code's SVG), checked to be one SVG
 * element with no script or event handler; never for text from a request or the database.
 */
export function generatedSvg(svg: string): Html {
  const trimmed = svg.trim();
  if (!/^<svg[\s\S]*<\/svg>$/.test(trimmed) || /<script|\son\w+\s*=|javascript:/i.test(trimmed)) {
    throw new Error('unexpected markup from the SVG generator');
  }
  return new Html(trimmed);
}

/** A dashboard link with query parameters, every value URL-encoded (and escaped where interpolated). */
export function href(path: string, query: Record<string, string | number | undefined | null> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}
