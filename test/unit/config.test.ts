import t from 'tap';
import { loadConfig, ConfigError } from '../../src/config.js';

t.test('defaults', async (t) => {
  const config = loadConfig({});
  t.equal(config.port, 8080);
  t.equal(config.host, '0.0.0.0');
  t.match(config.dataDir, /\/data$/);
  t.equal(config.logLevel, 'info');
  t.equal(config.bodyLimitBytes, 1024 * 1024);
  t.ok(config.workers >= 1 && config.workers <= 4);
});

t.test('every bad value is named, all at once', async (t) => {
  try {
    loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', WORKERS: '0', BODY_LIMIT_BYTES: '12', QUEUE_LIMIT: '-3' });
    t.fail('should throw');
  } catch (error) {
    t.ok(error instanceof ConfigError);
    const problems = (error as ConfigError).problems;
    t.equal(problems.length, 5);
    t.match(problems.join('\n'), /PORT="eighty" is not a whole number/);
    t.match(problems.join('\n'), /LOG_LEVEL="loud" is not one of/);
    t.match(problems.join('\n'), /WORKERS=0 is out of range \(expected 1\.\.64\)/);
    t.match(problems.join('\n'), /BODY_LIMIT_BYTES=12 is out of range/);
    t.match(problems.join('\n'), /QUEUE_LIMIT="-3" is not a whole number/);
  }
});

t.test('ACCESS_LOG: on, errors or off, and the words for on and off', async (t) => {
  t.equal(loadConfig({}).accessLog, 'on');
  for (const word of ['on', 'ON', 'true', '1', ' on ']) t.equal(loadConfig({ ACCESS_LOG: word }).accessLog, 'on', word);
  for (const word of ['off', 'false', '0']) t.equal(loadConfig({ ACCESS_LOG: word }).accessLog, 'off', word);
  t.equal(loadConfig({ ACCESS_LOG: 'Errors' }).accessLog, 'errors');
  try {
    loadConfig({ ACCESS_LOG: 'sometimes' });
    t.fail('should throw');
  } catch (error) {
    t.same((error as ConfigError).problems, ['ACCESS_LOG="sometimes" is not one of on, errors, off']);
  }
});

t.test('the server refuses to start on a bad value, with the message on stderr', async (t) => {
  const { spawnSync } = await import('node:child_process');
  const { join } = await import('node:path');
  const { projectRoot } = await import('../../src/paths.js');
  const run = spawnSync(process.execPath, [join(projectRoot, 'dist/src/server.js')], { env: { ...process.env, PORT: '99999' }, encoding: 'utf8' });
  t.equal(run.status, 2);
  t.match(run.stderr, /PORT=99999 is out of range \(expected 0\.\.65535\)/);
});
