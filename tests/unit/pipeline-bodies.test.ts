/**
 * How the `pipeline` app reads the JSON body of a declared route before the declaration's schema
 * checks it (functions/pipeline/routes.ts): whatever the content type, bounded, an empty body as
 * `{}`, never `null` or text taken for an empty one, and the client's own text checked (a number
 * too large for a double stays Infinity, refused, rather than becoming `null`). No database: every
 * request here is refused before any RPC.
 */
import { describe, expect, test } from "bun:test";
import { createPipelineApp } from "../../functions/pipeline/app.ts";
import type { PipelineDeps } from "../../functions/pipeline/deps.ts";
import { createLogger } from "../../shared/logging/logger.ts";

const KEY = "service-role-key-for-tests";
const noDatabase = () => {
  throw new Error("no database in unit tests");
};
const database = new Proxy(noDatabase, { get: noDatabase, apply: noDatabase });
const app = createPipelineApp({
  env: { ENV: "dev", SERVICE_ROLE_KEY: KEY, FUNCTIONS_URL: "http://edge.test/functions/v1" },
  sql: database,
  logger: createLogger("pipeline", { write: () => {} }, "fatal"),
} as unknown as PipelineDeps);

async function send(method: string, path: string, body: string | null, contentType: string | null, bearer = true) {
  const headers: Record<string, string> = {};
  if (bearer) headers.authorization = `Bearer ${KEY}`;
  if (contentType) headers["content-type"] = contentType;
  const response = await app.request(`http://edge.test${path}`, { method, headers, ...(body === null ? {} : { body }) });
  return { status: response.status, body: (await response.json()) as { error: string; issues?: { path: (string | number)[] }[] } };
}

describe("a declared route's JSON body", () => {
  test("an empty body is {}: the schema names the fields it lacks", async () => {
    const { status, body } = await send("POST", "/pipeline/dimensions", null, null);
    expect(status).toBe(400);
    expect(body.issues!.map((i) => i.path.join("."))).toContain("id");
  });

  test.each([["null", "text/plain"], ["null", null], ["null", "application/json"], ["[]", "application/json"]])(
    "%s sent as %s is checked as the body it is, never read as an empty one",
    async (text, type) => {
      const { status, body } = await send("POST", "/pipeline/housekeeping", text, type);
      expect(status).toBe(400);
      expect(body.error).toBe("invalid request");
      expect(body.issues![0]!.path).toEqual([]);
    },
  );

  test("a form body is not JSON: 400 before the schema", async () => {
    const { status, body } = await send("POST", "/pipeline/dimensions", "id=x&display_name=y", "application/x-www-form-urlencoded");
    expect(status).toBe(400);
    expect(body.error).toBe("the body is not valid JSON");
  });

  test("1e400 reaches the schema as Infinity and is refused, not turned into null (a setting's reset)", async () => {
    const { status, body } = await send("PATCH", "/pipeline/housekeeping/settings", '{"events_days": 1e400}', "application/json");
    expect(status).toBe(400);
    expect(body.issues!.map((i) => i.path.join("."))).toEqual(["events_days"]);
  });

  test("without the bearer, the body is not read: 401 even for malformed JSON", async () => {
    const { status } = await send("POST", "/pipeline/dimensions", "{not json", "application/json", false);
    expect(status).toBe(401);
  });
});
