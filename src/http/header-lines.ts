/**
 * Response header lines, `Name: value\r\n` each, rendered once for answers the service sends many
 * times (a kept registry answer's own headers), and written to the socket as they are.
 */
export type HeaderLines = string;

export function headerLines(headers: Record<string, string>): HeaderLines {
  let lines = '';
  for (const name in headers) lines += `${name}: ${headers[name]}\r\n`;
  return lines;
}
