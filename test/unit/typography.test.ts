import t from 'tap';
import { plainTypography } from '../../registry/lib/read-sources.js';

t.test('typographic punctuation becomes plain ASCII; everything else is untouched', async (t) => {
  t.equal(plainTypography('The organization\u2019s \u201Ccrown jewels\u201D \u2014 see 1\u20133\u2026'), `The organization's "crown jewels" - see 1-3...`);
  t.equal(plainTypography('Authorized Software\u00A0\u2014 Allow-by-exception'), 'Authorized Software - Allow-by-exception');
  t.equal(plainTypography('164.308(a)(1)(ii)(A) ≥ 0.7 café'), '164.308(a)(1)(ii)(A) ≥ 0.7 café', 'other characters stay');
});
