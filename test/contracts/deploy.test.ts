/**
 * The deploy files (deploy/Containerfile, deploy/csr.service, deploy/compose.cluster.yaml) and
 * `npm start` against the code they start: the entry point and V8 flags, the probe path, a
 * non-root user, and only variables the service reads.
 * Neither can be run here (no container daemon, no systemd as PID 1), so this keeps them from
 * drifting from the code.
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { SERVER_ENTRY, SERVICE_NODE_FLAGS } from '../../src/node-flags.js';
import { routes } from '../../src/api/routes.js';

const entry = relative(projectRoot, SERVER_ENTRY);
const containerfile = readFileSync(join(projectRoot, 'deploy', 'Containerfile'), 'utf8');
const unit = readFileSync(join(projectRoot, 'deploy', 'csr.service'), 'utf8');
const compose = readFileSync(join(projectRoot, 'deploy', 'compose.cluster.yaml'), 'utf8');
const packageJson = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
/** The variables the README's "Operating it" table documents (and src/config.ts reads), plus NODE_ENV. */
const known = new Set(['NODE_ENV', ...[...readme.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1])]);

t.test('Containerfile: multi-stage, non-root, health check on /healthz, the service entry', async (t) => {
  const stages = containerfile.match(/^FROM /gm) ?? [];
  t.ok(stages.length >= 2, `${stages.length} stages`);
  const runtime = containerfile.slice(containerfile.lastIndexOf('\nFROM '));
  t.match(runtime, /^USER (?!root\b)\S+/m, 'the runtime stage runs as a non-root user');
  t.match(runtime, /^HEALTHCHECK .*\/healthz/ms, 'health check on /healthz');
  t.ok(
    routes.some((r) => r.method === 'GET' && r.path === '/healthz' && r.tier === null),
    '/healthz is a public route',
  );
  t.match(runtime, `CMD ["node", ${SERVICE_NODE_FLAGS.map((f) => JSON.stringify(f)).join(', ')}, "${entry}"]`, 'starts the built server with its V8 flags');
  t.notMatch(runtime, /npm (ci|install)(?!.*--omit=dev)/, 'the runtime stage installs no dev dependencies');
  const envs = [...runtime.matchAll(/^ENV ([\s\S]*?)(?<!\\)\n/gm)].flatMap((m) => [...m[1].matchAll(/([A-Z_]+)=/g)].map((v) => v[1]));
  t.ok(envs.includes('DATA_DIR'), 'sets DATA_DIR');
  for (const name of envs) t.ok(known.has(name), `ENV ${name} is a variable the service reads`);
});

t.test('systemd unit: unprivileged user, the service entry, only known variables', async (t) => {
  t.match(unit, /^User=(?!root\b)\S+/m, 'runs as a dedicated user');
  t.match(unit, new RegExp(`^ExecStart=\\S*node ${SERVICE_NODE_FLAGS.join(' ')} /opt/csr/${entry}$`, 'm'), 'starts the built server with its V8 flags');
  t.match(unit, /^KillSignal=SIGTERM$/m, 'stops with SIGTERM (graceful drain)');
  t.match(unit, /^RestartPreventExitStatus=2$/m, 'a bad setting (exit 2) is not restarted in a loop');
  const variables = [...unit.matchAll(/^Environment=([A-Z_]+)=/gm)].map((m) => m[1]);
  t.ok(variables.includes('DATA_DIR'), 'sets DATA_DIR');
  for (const name of variables) t.ok(known.has(name), `Environment ${name} is a variable the service reads`);
});

t.test('npm start and the cluster compose file start the built server with the same V8 flags', async (t) => {
  t.equal(packageJson.scripts.start, `node ${SERVICE_NODE_FLAGS.join(' ')} ${entry}`, 'npm start');
  t.match(compose, `CMD ["node", ${SERVICE_NODE_FLAGS.map((f) => JSON.stringify(f)).join(', ')}, "${entry}"]`, 'compose.cluster.yaml');
});
