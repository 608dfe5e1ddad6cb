import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON lines on stdout. Writes are asynchronous (sonic-boom coalesces lines written while one
 * write is in flight): with an access-log line per request, a write(2) per line on the HTTP
 * thread would cost more than serving a cached registry answer. Call `flush` before exiting.
 */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'csr' }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: 1, sync: false }));
}
