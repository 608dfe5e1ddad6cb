/**
 * What the generators read: the fact tables in registry/facts and, from registry/sources, the
 * framework catalogs (to keep only claims that land on a real control) and the frozen 1.0.0
 * GEN signals (the topics that rules without any tool claim fall back to).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import type { FrameworkCatalogFile, SignalSource, SignalsFile } from '../../src/schemas/registry-source.js';

export interface SourceInfo {
  repo: string;
  commit: string;
}

export class Catalogs {
  private readonly ids = new Map<string, Map<string, string>>();
  /** NIST SP 800-171 Rev 2 requirement number → CMMC practice id. */
  readonly cmmcBy171 = new Map<string, string>();

  constructor(sourcesDir: string) {
    const dir = join(sourcesDir, 'frameworks');
    for (const name of readdirSync(dir).sort()) {
      const doc = YAML.parse(readFileSync(join(dir, name), 'utf8')) as FrameworkCatalogFile;
      this.ids.set(doc.code, new Map(doc.controls.map((c) => [String(c.id), c.title ?? String(c.id)])));
      if (doc.code === 'CMMC') {
        for (const c of doc.controls) if (c.flags?.nist_800_171r2) this.cmmcBy171.set(String(c.flags.nist_800_171r2), String(c.id));
      }
    }
  }

  has(framework: string, control: string): boolean {
    return this.ids.get(framework)?.has(control) ?? false;
  }

  title(framework: string, control: string): string {
    return this.ids.get(framework)?.get(control) ?? control;
  }
}

type Row = Array<string | number | string[]>;

interface FactFile {
  source: SourceInfo;
  [table: string]: unknown;
}

export interface Facts {
  prowler: { source: SourceInfo; checks: Array<[string, string, string, string, string, number, string, string]> };
  prowlerClaims: {
    source: SourceInfo;
    frameworks: Array<[string, string, string, string]>;
    requirement_titles: Array<[string, string, string]>;
    claims: Array<[string, string, string, string]>;
    claims_of_removed_checks: Array<[string, string, string, string]>;
  };
  securityHub: { source: SourceInfo; controls: Array<[string, string, string[], string]> };
  checkov: { source: SourceInfo; checks: Array<[string, string, string, string[], string]> };
  trivy: { source: SourceInfo; checks: Array<[string, string, string, string, number, string[], string]>; spec_controls: Array<[string, string, string[]]> };
  kubeBench: { source: SourceInfo; checks: Array<[string, string, string, string, string]> };
  azure: {
    source: SourceInfo;
    definitions: Array<[string, string, number, string]>;
    initiatives: Array<[string, string, string]>;
    claims: Array<[string, number, string]>;
  };
  legacy: { assignments: Array<[string, string, string, string]> };
}

export function readFacts(factsDir: string): Facts {
  const read = <T>(name: string) => JSON.parse(readFileSync(join(factsDir, name), 'utf8')) as T & FactFile;
  return {
    prowler: read('prowler.json'),
    prowlerClaims: read('prowler-claims.json'),
    securityHub: read('aws-security-hub.json'),
    checkov: read('checkov.json'),
    trivy: read('trivy.json'),
    kubeBench: read('kube-bench.json'),
    azure: read('azure-policy.json'),
    legacy: JSON.parse(readFileSync(join(factsDir, 'legacy-1.0.0-assignments.json'), 'utf8')) as Facts['legacy'],
  };
}

/** The frozen 1.0.0 GEN signals (signals/GEN-legacy-*.yaml), by id. */
export function readLegacySignals(sourcesDir: string): Map<string, SignalSource> {
  const dir = join(sourcesDir, 'signals');
  const out = new Map<string, SignalSource>();
  for (const name of readdirSync(dir)
    .filter((n) => n.startsWith('GEN-legacy-'))
    .sort()) {
    const doc = YAML.parse(readFileSync(join(dir, name), 'utf8')) as SignalsFile;
    for (const signal of doc.signals) out.set(signal.id, signal);
  }
  return out;
}

export type { Row };
