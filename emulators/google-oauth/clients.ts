/**
 * The OAuth clients the emulator knows, and which client each refresh token was granted to, as
 * Google keeps them: a client registered here (EMULATOR_GOOGLE_OAUTH_CLIENTS at start, or the admin
 * route) is accepted only with its own secret (401 `invalid_client` otherwise); an unregistered
 * client id is accepted with any secret, as the emulator always did. A refresh token a consent here
 * issued belongs to the client of that consent (the latest one for its channel): presented with
 * another client's credentials it is refused with 400 `unauthorized_client`, as Google refuses it.
 * One consented nowhere (tests hand the engine `emulator-refresh-<channel>` directly) refreshes
 * with any client. Every refresh grant is recorded with the client that presented it.
 *
 * Admin (clients-admin.ts):
 * - `POST /_emulator/oauth/clients {"client_id", "client_secret"}` registers (or replaces) a client;
 *   `GET` -> `{clients: [client ids]}` (secrets are not shown).
 * - `GET /_emulator/oauth/refreshes` -> `{refreshes: [{client_id, channel, outcome, at}]}`, oldest first.
 * `POST /_emulator/reset` forgets the clients registered through the route, the bindings and the log.
 */
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import process from "node:process";

/** OAuth client ids as the emulator takes them. */
export const CLIENT_ID = /^[A-Za-z0-9._-]{1,200}$/;

interface RefreshRecord {
  client_id: string;
  channel: string;
  /** `issued`, or the OAuth error the grant was refused with. */
  outcome: string;
  at: string;
}

/** Parses `id:secret,id2:secret2` (EMULATOR_GOOGLE_OAUTH_CLIENTS); throws naming a bad entry. */
export function parseClientList(text: string | undefined): Record<string, string> {
  const clients: Record<string, string> = {};
  for (const entry of (text ?? "").split(",").map((e) => e.trim()).filter(Boolean)) {
    const colon = entry.indexOf(":");
    const id = entry.slice(0, colon);
    if (colon <= 0 || colon === entry.length - 1 || !CLIENT_ID.test(id)) {
      throw new Error(`EMULATOR_GOOGLE_OAUTH_CLIENTS: ${JSON.stringify(entry)} is not <client id>:<secret>`);
    }
    clients[id] = entry.slice(colon + 1);
  }
  return clients;
}

export class OAuthClientBook {
  readonly #configured: ReadonlyMap<string, string>;
  #registered = new Map<string, string>();
  #bindings = new Map<string, string>();
  #refreshes: RefreshRecord[] = [];
  readonly #bindingsFile: string;

  constructor(dataDir: string, configured: Record<string, string> = {}) {
    this.#configured = new Map(Object.entries(configured));
    this.#bindingsFile = path.join(dataDir, "oauth", "bindings.json");
  }

  async load(): Promise<void> {
    const text = await readFile(this.#bindingsFile, "utf8").catch(() => "{}");
    this.#bindings = new Map(Object.entries(JSON.parse(text) as Record<string, string>));
  }

  /** Whether the client may call the token endpoint with this secret. */
  authenticates(clientId: string, secret: string): boolean {
    const known = this.#registered.get(clientId) ?? this.#configured.get(clientId);
    return known === undefined || known === secret;
  }

  /** Whether `clientId` may refresh the token: its own consent's client, or any for a token consented nowhere. */
  mayRefresh(refreshToken: string, clientId: string): boolean {
    const owner = this.#bindings.get(refreshToken);
    return owner === undefined || owner === clientId;
  }

  /** A consent through `clientId` issued the refresh token: it belongs to that client from now on. */
  async bind(refreshToken: string, clientId: string): Promise<void> {
    if (this.#bindings.get(refreshToken) === clientId) return;
    this.#bindings.set(refreshToken, clientId);
    await mkdir(path.dirname(this.#bindingsFile), { recursive: true });
    const tmp = `${this.#bindingsFile}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(Object.fromEntries(this.#bindings)));
    await rename(tmp, this.#bindingsFile);
  }

  record(entry: Omit<RefreshRecord, "at">): void {
    this.#refreshes.push({ ...entry, at: new Date().toISOString() });
  }

  register(clientId: string, secret: string): void {
    this.#registered.set(clientId, secret);
  }

  clientIds(): string[] {
    return [...new Set([...this.#configured.keys(), ...this.#registered.keys()])].sort();
  }

  refreshes(): RefreshRecord[] {
    return [...this.#refreshes];
  }

  async clear(): Promise<void> {
    this.#registered.clear();
    this.#bindings.clear();
    this.#refreshes = [];
    await rm(this.#bindingsFile, { force: true });
  }
}
