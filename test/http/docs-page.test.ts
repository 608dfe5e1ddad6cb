/**
 * The /docs page in a real browser: headless Chromium (Debian package `chromium`) loads it from
 * the service on a real socket, driven over the DevTools protocol. The page must render every
 * documented operation, and every request it makes must go to the service: a request to any other
 * host (a CDN, web fonts, telemetry, the spec validator) fails the test. Chromium also runs with
 * host resolution mapped to nowhere for every other name, so such a request could not succeed
 * anyway. Without chromium the test reports SKIPPED with the package to install.
 */
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startTestService, call } from '../helpers/service.js';
import { hasCommand } from '../export/read-back.js';
import { routes } from '../../src/api/routes.js';

const browser = ['chromium', 'chromium-browser'].find(hasCommand);

/** A DevTools protocol connection: numbered commands, events by method name. */
class DevTools {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(value: any): void; reject(error: Error): void }>();
  private readonly listeners: Array<(method: string, params: any, sessionId?: string) => void> = [];

  constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.id !== undefined) {
        const waiter = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) waiter?.reject(new Error(`${message.error.message} (${message.error.code})`));
        else waiter?.resolve(message.result);
      } else {
        for (const listener of this.listeners) listener(message.method, message.params, message.sessionId);
      }
    });
  }

  static async connect(url: string): Promise<DevTools> {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    return new DevTools(socket);
  }

  send(method: string, params: object = {}, sessionId?: string): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  on(listener: (method: string, params: any, sessionId?: string) => void): void {
    this.listeners.push(listener);
  }

  close(): void {
    this.socket.close();
  }
}

/** Starts headless chromium on a free DevTools port (port 0: chromium picks it and prints the address). */
async function launchChromium(command: string, profile: string): Promise<{ process: ChildProcess; endpoint: string }> {
  const child = spawn(
    command,
    [
      '--headless=new',
      '--remote-debugging-port=0',
      '--remote-debugging-address=127.0.0.1',
      `--user-data-dir=${profile}`,
      // Every name but the service's resolves to nothing: nothing can leave the machine.
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-extensions',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--metrics-recording-only',
      'about:blank',
    ],
    // Its own process group, so that stopping it also stops its renderer and helper processes.
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const endpoint = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`chromium printed no DevTools address in 60 s:\n${seen}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`chromium exited ${code} before listening:\n${seen}`));
    });
  });
  return { process: child, endpoint };
}

t.test('the API reference page', async (t) => {
  const service = await startTestService();
  t.teardown(() => service.close());

  const page = await call(service, 'GET', '/docs');
  t.equal(page.status, 200, '/docs needs no key');
  t.match(page.headers.get('content-type'), /^text\/html/);
  t.match(page.headers.get('content-security-policy'), /default-src 'self'/, 'the browser may load from this origin only');
  t.notMatch(page.text, /https?:\/\//, 'the page names no other host');
  for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js']) {
    const res = await call(service, 'GET', `/docs/assets/${asset}`);
    t.equal(res.status, 200, `${asset} is served from the service`);
  }
  const missing = await call(service, 'GET', '/docs/assets/constructor');
  t.equal(missing.status, 404);
  t.equal(missing.body.error.code, 'not_found', 'an unknown asset is the usual 404 envelope');
  t.equal((await call(service, 'GET', '/v1/openapi.json')).status, 200, 'the document it renders needs no key either');

  await t.test(
    'renders every operation in headless chromium, with no request to another host',
    { skip: browser ? false : 'SKIPPED: needs a headless browser: apt-get install chromium (Debian package chromium)' },
    async (t) => {
      const profile = mkdtempSync(join(tmpdir(), 'csr-chromium-'));
      const { process: chromium, endpoint } = await launchChromium(browser!, profile);
      const exited = new Promise((resolve) => chromium.once('exit', resolve));
      t.teardown(async () => {
        process.kill(-chromium.pid!, 'SIGTERM');
        await exited;
        // Helpers may still be flushing the profile for a moment after the browser process exits.
        rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
      });
      const devtools = await DevTools.connect(endpoint);
      t.teardown(() => devtools.close());

      const { targetId } = await devtools.send('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await devtools.send('Target.attachToTarget', { targetId, flatten: true });
      const requested: string[] = [];
      const urls = new Map<string, string>();
      const failed: string[] = [];
      const consoleErrors: string[] = [];
      let loaded!: () => void;
      const load = new Promise<void>((resolve) => (loaded = resolve));
      devtools.on((method, params, from) => {
        if (from !== sessionId) return;
        if (method === 'Network.requestWillBeSent') {
          requested.push(params.request.url);
          urls.set(params.requestId, params.request.url);
        }
        if (method === 'Network.loadingFailed') failed.push(`${urls.get(params.requestId)}: ${params.errorText || params.blockedReason}`);
        if (method === 'Runtime.exceptionThrown') consoleErrors.push(params.exceptionDetails?.exception?.description ?? params.exceptionDetails?.text);
        if (method === 'Page.loadEventFired') loaded();
      });
      await devtools.send('Network.enable', {}, sessionId);
      await devtools.send('Page.enable', {}, sessionId);
      await devtools.send('Runtime.enable', {}, sessionId);
      await devtools.send('Page.navigate', { url: `${service.url}/docs` }, sessionId);
      await load;

      const operations = routes.filter((route) => route.documented !== false);
      const evaluate = async (expression: string) => (await devtools.send('Runtime.evaluate', { expression, returnByValue: true }, sessionId)).result.value;
      const deadline = Date.now() + 60_000;
      let rendered: Array<{ method: string; path: string }> = [];
      while (Date.now() < deadline) {
        rendered = await evaluate(
          `[...document.querySelectorAll('.opblock')].map((block) => ({ method: block.querySelector('.opblock-summary-method')?.textContent ?? '', path: block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '' }))`,
        );
        if (rendered.length >= operations.length) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const shown = new Set(rendered.map((op) => `${op.method.toUpperCase()} ${op.path}`));
      for (const route of operations) {
        const label = `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`;
        t.ok(shown.has(label), `renders ${label}`);
      }
      t.equal(rendered.length, operations.length, `${rendered.length} operations on the page, one per documented route`);
      t.equal(
        await evaluate(`document.querySelector('.info .title')?.textContent?.includes('Compliance Signal Registry')`),
        true,
        'the title from the document',
      );
      t.same(consoleErrors, [], 'no script errors');

      const origin = new URL(service.url).origin;
      const elsewhere = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'));
      t.same(elsewhere, [], 'no request to a host other than the service');
      t.ok(requested.includes(`${origin}/v1/openapi.json`), 'the page fetched the OpenAPI document from the service');
      t.same(failed, [], 'no request failed');
    },
  );
});
