/**
 * What the `supabase-extensions` layer's tests share: whether the server in use has the real pg_net,
 * Vault and pgmq (MDAME_PG_BINDIR, docs/reference/supabase-wiring.md), and a superuser connection.
 */
import postgres from "postgres";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { pgBinDir, serverExtensions } from "../../stack/pg-server.ts";

const extensions = serverExtensions(pgBinDir());

/** Why the layer cannot run on this server, or null when it has all three extensions. */
export const missingExtensions: string | null = extensions.pgNet && extensions.vault && extensions.pgmqVersion !== null
  ? null
  : `${pgBinDir()} has ${
    [!extensions.pgNet && "no pg_net", !extensions.vault && "no supabase_vault", extensions.pgmqVersion === null && "no pgmq"].filter(Boolean).join(", ")
  }`;

export const superuser = () => postgres(LOCAL_DB_URL, { max: 2, onnotice: () => {} });

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
