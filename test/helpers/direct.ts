import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { IncomingRequest, OutgoingResponse, Pipeline } from '../../src/http/pipeline.js';
import type { CallResult } from './service.js';

/**
 * One request handed to the pipeline as the uWS adapter hands it over, with no socket: admission,
 * body, route and handler run as they do for a client; the answer comes back in the shape `call`
 * gives (headers, parsed JSON, text; a compressed body decoded, as fetch decodes it). Each
 * answer is reported to the pipeline as the adapter reports it, so metrics and the access log see
 * it too.
 */
export async function callDirect(
  service: { pipeline: Pipeline },
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<CallResult> {
  const { pipeline } = service;
  const started = performance.now();
  // The adapter gives header names in lower case, the path and the query apart.
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body = Buffer.alloc(0);
  if (options.rawBody !== undefined) body = Buffer.from(options.rawBody);
  else if (options.body !== undefined) {
    body = Buffer.from(JSON.stringify(options.body));
    headers['content-type'] ??= 'application/json';
  }
  const queryAt = path.indexOf('?');
  const request: IncomingRequest = {
    method,
    url: queryAt < 0 ? path : path.slice(0, queryAt),
    query: queryAt < 0 ? '' : path.slice(queryAt + 1),
    headers,
    remoteAddress: '127.0.0.1',
    closed: new AbortController().signal,
  };

  let admission = pipeline.admit(request);
  if (admission.kind === 'defer') admission = await admission.admission;
  let response: OutgoingResponse;
  if (admission.kind === 'respond') response = admission.response;
  else if (admission.kind === 'run') response = await admission.run();
  else response = body.length > admission.limit ? admission.tooLarge() : await admission.run(body);

  const chunks: Buffer[] = [];
  if (typeof response.body === 'string' || Buffer.isBuffer(response.body)) chunks.push(Buffer.from(response.body));
  else for await (const chunk of response.body) chunks.push(Buffer.from(chunk));
  response.afterSend?.();
  const sent = method === 'HEAD' || response.status === 304 ? Buffer.alloc(0) : Buffer.concat(chunks);
  pipeline.answered(request, response.status, sent.length, (performance.now() - started) / 1000);

  const answerHeaders = new Headers(response.headers);
  if (response.headerLines) {
    // The kept answer's own lines, rendered once: `name` is the first header's name, `value` the rest.
    const lines = `${response.headerLines.name.toString()}: ${response.headerLines.value.toString()}`.split('\r\n');
    for (const line of lines) answerHeaders.append(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2));
  }
  const coding = answerHeaders.get('content-encoding');
  const decoded = coding === 'br' ? brotliDecompressSync(sent) : coding === 'gzip' ? gunzipSync(sent) : sent;
  const text = decoded.toString('utf8');
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: answerHeaders, body: parsed, text };
}
