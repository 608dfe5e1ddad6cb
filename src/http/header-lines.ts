/**
 * Response header lines, `Name: value\r\n` each: rendered once for answers the service sends many
 * times (a kept registry answer's own headers), and per answer for the rest, and written to the
 * socket as they are.
 */
export type HeaderLines = string;

/** The lines of `headers`, less the one named `omit` (a header the socket layer writes itself). */
export function headerLines(headers: Record<string, string>, omit?: string): HeaderLines {
  let lines = '';
  for (const name in headers) {
    if (name !== omit) lines += name + ': ' + headers[name] + '\r\n';
  }
  return lines;
}
