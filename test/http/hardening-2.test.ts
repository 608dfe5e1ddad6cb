import t from 'tap';
import { startTestService } from '../helpers/service.js';
import { exchange } from '../helpers/raw-http.js';

// Request-level defects an adversarial review found, over real sockets; each stays fixed.
const service = await startTestService();
t.teardown(() => service.close());
const key = await service.key('enterprise');

t.test('a framing header sent twice is refused and the connection closed: nothing smuggled behind it runs', async (t) => {
  const smuggled = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';
  const cases: Array<[string, string]> = [
    ['two different Content-Lengths', `POST /v1/mappings/bulk HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: ${2 + smuggled.length}\r\n\r\n{}${smuggled}`],
    ['the same Content-Length twice', `POST /v1/mappings/bulk HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}${smuggled}`],
    ['Transfer-Encoding twice', `POST /v1/mappings/bulk HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n${smuggled}`],
    ['HEAD with two Content-Lengths', `HEAD /v1/signals HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}`],
    ['two Hosts', `GET /v1/signals HTTP/1.1\r\nHost: x\r\nHost: y\r\nAuthorization: Bearer ${key}\r\n\r\n${smuggled}`],
  ];
  for (const [name, request] of cases) {
    const { answers, closed } = await exchange(service.url, [request], 2);
    t.equal(answers.length, 1, `${name}: one answer`);
    t.ok(closed, `${name}: the connection is closed after it`);
    t.equal(answers[0].status, 400, name);
    const error = JSON.parse(answers[0].text).error;
    t.equal(error.code, 'header_repeated', name);
    t.match(error.details.header, /^(content-length|transfer-encoding|host)$/, name);
  }
  const once = await exchange(service.url, [`GET /v1/signals?per_page=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n${smuggled}`], 2);
  t.same(
    once.answers.map((a) => a.status),
    [200, 200],
    'headers sent once: both pipelined requests answered',
  );
});
