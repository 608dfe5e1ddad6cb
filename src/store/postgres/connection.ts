import postgres, { type Sql } from 'postgres';

export interface PostgresOptions {
  /** Connections in this process's pool. */
  max?: number;
}

/** One pool per process. Notices (e.g. "relation already exists, skipping") are not our log's business. */
export function connect(url: string, options: PostgresOptions = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 60,
    connect_timeout: 10,
    onnotice: () => {},
    // The service names itself in pg_stat_activity, which helps whoever operates the database.
    connection: { application_name: 'csr' },
  });
}
