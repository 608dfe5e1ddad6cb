import t from 'tap';
import { bearerToken } from '../../src/core/bearer.js';

t.test('a bearer token: the scheme in any case, spaces around the token, nothing else', async (t) => {
  const token = 'csr_0123456789abcdef_abcDEF-_xyz0123456789ABCDEFGHIJKLMNOPQRSTU';
  const read: [string, string | undefined][] = [
    [`Bearer ${token}`, token],
    [`bearer ${token}`, token],
    [`BEARER ${token}`, token],
    [`Bearer  ${token}`, token],
    [`Bearer\t${token}`, token],
    [`Bearer ${token} `, token],
    [`Bearer ${token}\u00a0`, token],
    [`Bearer ${token} extra`, undefined],
    [`Bearer ${token.slice(0, 10)}\u000b${token.slice(10)}`, undefined],
    ['Bearer ', undefined],
    ['Basic dXNlcjpwYXNz', undefined],
    [`Token ${token}`, undefined],
    [token, undefined],
    ['', undefined],
  ];
  for (const [header, expected] of read) t.equal(bearerToken(header), expected, JSON.stringify(header));
  t.equal(bearerToken(undefined), undefined);
});
