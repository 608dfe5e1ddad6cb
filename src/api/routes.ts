import { healthRoutes } from './health.js';
import { metricsRoutes } from './metrics.js';
import { gapAnalysisRoutes } from './gap-analysis.js';
import { signalRoutes } from './signals.js';
import { mappingRoutes } from './mappings.js';
import { domainRoutes } from './domains.js';
import { searchRoutes } from './search.js';
import { frameworkRoutes } from './frameworks.js';
import { customFrameworkRoutes } from './custom-frameworks.js';
import { artifactTypeRoutes } from './artifact-types.js';
import { crosswalkRoutes } from './crosswalks.js';
import { catalogRoutes } from './catalog.js';
import { validateRoutes } from './validate.js';
import { openApiRoutes } from './openapi.js';
import { exportRoutes } from './exports.js';
import { docsRoutes } from './docs.js';
import { scannerImportRoutes } from './scanner-import.js';
import { postureRoutes } from './posture.js';
import { webhookRoutes } from './webhooks.js';
import type { Route } from '../http/route.js';

/** The route table: every endpoint the service answers, as data. */
export const routes: Route[] = [
  ...healthRoutes,
  ...metricsRoutes,
  ...gapAnalysisRoutes,
  ...scannerImportRoutes,
  ...postureRoutes,
  ...webhookRoutes,
  ...signalRoutes,
  ...mappingRoutes,
  ...domainRoutes,
  ...searchRoutes,
  ...frameworkRoutes,
  ...customFrameworkRoutes,
  ...artifactTypeRoutes,
  ...crosswalkRoutes,
  ...catalogRoutes,
  ...validateRoutes,
  ...exportRoutes,
  ...openApiRoutes(() => routes),
  ...docsRoutes,
];
