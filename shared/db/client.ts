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

/** Refuses to go on when ENV differs from the environment the database records. */
export async function assertEnvironment(sql: Sql, env: string): Promise<void> {
  await sql`select mdame.assert_environment(${env})`;
}
