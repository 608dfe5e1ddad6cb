/** `Authorization: Bearer <token>` (RFC 6750): the scheme in any case, spaces around the token allowed. */
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The token of an Authorization header, or undefined when it is not a bearer credential. */
export function bearerToken(header: string | undefined): string | undefined {
  return header ? BEARER.exec(header)?.[1] : undefined;
}
