/**
 * Response header lines, `Name: value\r\n` each, as uWS's writeHeader(name, value) writes them: it
 * writes `name: value\r\n` as it is, without looking at either, so a value that carries the
 * following lines writes them too.
 */

/** The lines of `headers`, less the one named `omit` (a header the socket layer writes itself). */
export function headerLines(headers: Record<string, string>, omit?: string): string {
  let lines = '';
  for (const name in headers) {
    if (name !== omit) lines += name + ': ' + headers[name] + '\r\n';
  }
  return lines;
}

/**
 * Header lines rendered once for an answer the service sends many times (a kept registry
 * answer's own), split where writeHeader takes them: the first header's name, and everything
 * after its `: ` without the last line's end. As bytes: a string uWS measures, encodes and copies
 * on every answer, and joined to the answer's per-request lines it was copied once more
 * (figures: docs/benchmarks.md).
 */
export interface RenderedHeaderLines {
  name: Buffer;
  value: Buffer;
}

/** `headers` rendered for writeHeader, or undefined when there are none. */
export function renderHeaderLines(headers: Record<string, string>): RenderedHeaderLines | undefined {
  const lines = headerLines(headers);
  if (lines === '') return undefined;
  const colon = lines.indexOf(': ');
  return { name: Buffer.from(lines.slice(0, colon)), value: Buffer.from(lines.slice(colon + 2, -2)) };
}
