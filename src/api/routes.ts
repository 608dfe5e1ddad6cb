import { healthRoutes } from '../api/health.js';
import { metricsRoutes } from '../api/metrics.js';
import { gapAnalysisRoutes } from '../api/gap-analysis.js';
import { signalRoutes } from '../api/signals.js';
import { mappingRoutes } from '../api/mappings.js';
import { domainRoutes } from '../api/domains.js';
import { searchRoutes } from '../api/search.js';
import { frameworkRoutes } from '../api/frameworks.js';
import { customFrameworkRoutes } from '../api/custom-frameworks.js';
import { artifactTypeRoutes } from '../api/artifact-types.js';
import { crosswalkRoutes } from '../api/crosswalks.js';
import { catalogRoutes } from '../api/catalog.js';
import { validateRoutes } from '../api/validate.js';
import { openApiRoutes } from '../api/openapi.js';
import { exportRoutes } from '../api/exports.js';
import { docsRoutes } from '../api/docs.js';
import { scannerImportRoutes } from '../api/scanner-import.js';
import type { Route } from './route.js';

/** The route table: every endpoint the service answers, as data. */
export const routes: Route[] = [
  ...healthRoutes,
  ...metricsRoutes,
  ...gapAnalysisRoutes,
  ...scannerImportRoutes,
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
