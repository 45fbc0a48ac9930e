import postgres from "postgres";

export type Sql = postgres.Sql;

/** A postgres.js pool for the engine's database; notices are dropped, bigints come back as strings. */
export function createSql(url: string, options: { max?: number; application?: string } = {}): Sql {
  return postgres(url, {
    max: options.max ?? 4,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: options.application ?? "mdame" },
  });
}

/** A pool or a transaction (`sql.begin`'s callback argument): what the RPC functions run on. */
export type Queryable = postgres.ISql;
