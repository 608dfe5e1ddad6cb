/** The CSV reader of custom-framework spreadsheets: RFC 4180 as spreadsheets save it, row numbers as they show them. */
import t from 'tap';
import { CsvSyntaxError, parseCsv } from '../../src/custom-frameworks/csv.js';
import { columnLetter, readCsv } from '../../src/custom-frameworks/spreadsheet.js';
import { ApiError } from '../../src/core/errors.js';

t.test('quotes, line breaks and row numbers', async (t) => {
  const rows = parseCsv('\uFEFFa,b\r\n"x, ""y""","two\nlines"\r\n\r\nlast,\n');
  t.same(
    rows,
    [
      { row: 1, cells: ['a', 'b'] },
      { row: 2, cells: ['x, "y"', 'two\nlines'] },
      { row: 4, cells: ['last', ''] },
    ],
    'a byte-order mark dropped, a quoted line break inside one row, a blank line counted, an empty last cell kept',
  );
  t.same(
    parseCsv('a;b\n1,5;"x;y"'),
    [
      { row: 1, cells: ['a', 'b'] },
      { row: 2, cells: ['1,5', 'x;y'] },
    ],
    'semicolons when the header has no comma',
  );
  t.same(parseCsv('a,b'), [{ row: 1, cells: ['a', 'b'] }], 'no final line break');
  t.throws(() => parseCsv('a,b\n"open,x\n'), new CsvSyntaxError(2, 'a quoted field never closes'));
  t.throws(() => parseCsv('a\n"x"y\n'), { row: 2, message: 'text follows a closing quote inside a field' });
});

t.test('column letters', async (t) => {
  t.same([0, 1, 25, 26, 27, 51, 52, 701, 702].map(columnLetter), ['A', 'B', 'Z', 'AA', 'AB', 'AZ', 'BA', 'ZZ', 'AAA']);
});

t.test('a CSV syntax error names its row', async (t) => {
  try {
    readCsv(Buffer.from('control_id,title\nA-1,"never closed\n'));
    t.fail('refused');
  } catch (error) {
    t.ok(error instanceof ApiError);
    t.match((error as ApiError).details, { format: 'csv', row: 2, reason: 'a quoted field never closes' });
  }
  t.same(readCsv(Buffer.from('control_id,title\n')).controls, [], 'a header alone reads as no controls (defining the framework then refuses it)');
  t.throws(
    () => readCsv(Buffer.from('title\nA\n')),
    { code: 'framework_invalid', details: { row: 1, column: 'control_id' } },
    'a required column missing from the header',
  );
});
