/**
 * Validation against an official ISO 20022 XSD with libxml2 compiled to WebAssembly. The schema text is
 * passed in: reading XSD_DIR (or a system package) is the app layer's job, and the XSDs may not ship.
 */
export type OfficialXsdResult = { valid: boolean; errors: Array<{ line: number | null; message: string }> };

export async function validateWithOfficialXsd(xml: string, xsdText: string): Promise<OfficialXsdResult> {
  try {
    // Loaded on first use: the WebAssembly module costs ~40 MB of RSS that plain conversions never need.
    const { validateXML } = await import('xmllint-wasm');
    const r = await validateXML({
      xml: [{ fileName: 'document.xml', contents: xml }],
      schema: [{ fileName: 'schema.xsd', contents: xsdText }],
      // Files of a few hundred thousand transactions need more than the 32 MiB default.
      maxMemoryPages: 16 * 1024,
    });
    return { valid: r.valid, errors: r.errors.map((e) => ({ line: e.loc?.lineNumber ?? null, message: e.message })) };
  } catch (e) {
    return { valid: false, errors: [{ line: null, message: `xmllint could not run: ${(e as Error).message}` }] };
  }
}
