/** A problem found in the registry sources, located by file (relative to the sources dir) and JSON path. */
export interface SourceIssue {
  file: string;
  /** JSON pointer into the file's document, e.g. /signals/12/severity; empty for the whole file. */
  path: string;
  message: string;
}

export function formatIssue(issue: SourceIssue): string {
  return issue.path ? `${issue.file}: ${issue.path} ${issue.message}` : `${issue.file}: ${issue.message}`;
}

/** Collects every error and warning of one compile, so all of them are reported at once. */
export class Issues {
  readonly errors: SourceIssue[] = [];
  readonly warnings: SourceIssue[] = [];

  error(file: string, path: string, message: string): void {
    this.errors.push({ file, path, message });
  }

  warn(file: string, path: string, message: string): void {
    this.warnings.push({ file, path, message });
  }
}

/** Thrown by compileRegistry when the sources do not validate; lists every problem found. */
export class RegistrySourceError extends Error {
  constructor(readonly issues: SourceIssue[]) {
    super(`registry sources have ${issues.length} error${issues.length === 1 ? '' : 's'}:\n` + issues.map((issue) => `  ${formatIssue(issue)}`).join('\n'));
    this.name = 'RegistrySourceError';
  }
}
