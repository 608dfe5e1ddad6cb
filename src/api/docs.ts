/**
 * The API reference page at /docs: Swagger UI (swagger-ui-dist from npm, served from
 * node_modules) rendering /v1/openapi.json. Nothing is fetched from elsewhere: the bundle carries
 * no web fonts (its CSS uses the system's sans-serif and monospace), the online spec validator
 * badge is off (validatorUrl: null), and the page's Content-Security-Policy allows this origin
 * only, so a request to another host would be refused by the browser too. Public like the probes:
 * reading the interface needs no key (docs/api.md).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ApiError } from '../core/errors.js';
import type { FileReply, Route } from '../http/route.js';

const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The page's own script: Swagger UI on our document, with every call-home feature off. */
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  displayRequestDuration: true,
  defaultModelsExpandDepth: 0,
  tryItOutEnabled: false,
  persistAuthorization: false,
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Compliance Signal Registry API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" href="data:,">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`;

/** Same origin only; Swagger UI sets inline styles and shows data: images, nothing else is loosened. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

interface Asset {
  contentType: string;
  /** Read on first request and kept: the bundle is 1.7 MB and most processes never serve it. */
  load(): Buffer | string;
}

const ASSETS: Record<string, Asset> = {
  'swagger-ui.css': { contentType: 'text/css; charset=utf-8', load: () => readFileSync(join(SWAGGER_UI_DIR, 'swagger-ui.css')) },
  'swagger-ui-bundle.js': { contentType: 'text/javascript; charset=utf-8', load: () => readFileSync(join(SWAGGER_UI_DIR, 'swagger-ui-bundle.js')) },
  'init.js': { contentType: 'text/javascript; charset=utf-8', load: () => INIT_SCRIPT },
};

const loaded = new Map<string, Buffer | string>();

function assetReply(name: string): FileReply {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!asset) throw new ApiError('not_found', { resource: 'Asset', id: name });
  let body = loaded.get(name);
  if (body === undefined) {
    body = asset.load();
    loaded.set(name, body);
  }
  // The files change only with the swagger-ui-dist version, i.e. with a deploy.
  return { headers: { 'Content-Type': asset.contentType, 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' }, file: body };
}

export const docsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/docs',
    tier: null,
    tag: 'meta',
    summary: 'API reference page (HTML), rendered in the browser from /v1/openapi.json',
    documented: false,
    produces: ['text/html'],
    handler: () => ({
      headers: {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': CONTENT_SECURITY_POLICY,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-cache',
      },
      file: PAGE,
    }),
  },
  {
    method: 'GET',
    path: '/docs/assets/:asset',
    tier: null,
    tag: 'meta',
    summary: 'Scripts and styles of the API reference page',
    documented: false,
    errors: ['not_found'],
    handler: ({ params }) => assetReply(params.asset),
  },
];
