/**
 * What `?variant=a|b` should answer, written from the spec's two shapes (SPEC 2.7) rather than
 * from src/gap/variant.ts, so that the tests hold the code to the spec.
 */
const ONLY_A = ['analysis_id', 'summary', 'frameworks', 'cross_framework_insights'];
const ONLY_B = ['id', 'posture', 'by_framework', 'cross_framework', 'resources'];

export interface AnalysisResultJson {
  data: Record<string, unknown>;
  meta: Record<string, unknown>;
}

/** The union without the other variant's members, in the union's order. */
export function expectedVariant(union: AnalysisResultJson, variant: 'a' | 'b'): AnalysisResultJson {
  const left = variant === 'a' ? ONLY_B : ONLY_A;
  return { data: Object.fromEntries(Object.entries(union.data).filter(([name]) => !left.includes(name))), meta: union.meta };
}
