import { healthRoutes } from '../api/health.js';
import { gapAnalysisRoutes } from '../api/gap-analysis.js';
import type { Route } from './route.js';

/** The route table: every endpoint the service answers, as data. */
export const routes: Route[] = [...healthRoutes, ...gapAnalysisRoutes];
