import t from 'tap';
import { FairLine } from '../../src/pool.js';

/** A line entry that records its own admission. */
function entry(name: string, admitted: string[]) {
  return { admit: () => admitted.push(name), refuse: () => undefined };
}

t.test('one account first in, first out; between accounts, the one with fewest in service, then the one served least recently', async (t) => {
  const line = new FairLine();
  const admitted: string[] = [];
  line.start('a');
  for (const name of ['a1', 'a2', 'a3']) line.add('a', entry(name, admitted));
  line.add('b', entry('b1', admitted));
  const admit = () => {
    const next = line.next()!;
    next.entry.admit();
    return next.owner;
  };
  // a holds the thread: b, with none, goes first.
  t.equal(admit(), 'b');
  line.finish('a');
  // a's first task is done: a holds none, b one.
  t.equal(admit(), 'a');
  line.finish('b');
  line.finish('a');
  t.equal(admit(), 'a');
  t.equal(admit(), 'a');
  t.same(admitted, ['b1', 'a1', 'a2', 'a3']);
  t.equal(line.length, 0);
  t.equal(line.next(), undefined);
});

t.test('an entry that leaves is not admitted; drain gives the rest in arrival order', async (t) => {
  const line = new FairLine();
  const admitted: string[] = [];
  const leaving = entry('b1', admitted);
  line.add('a', entry('a1', admitted));
  line.add('b', leaving);
  line.add('c', entry('c1', admitted));
  line.remove('b', leaving);
  t.equal(line.length, 2);
  for (const waiting of line.drain()) waiting.admit();
  t.same(admitted, ['a1', 'c1']);
  t.equal(line.length, 0);
});
