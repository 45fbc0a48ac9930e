/**
 * The pipeline app asked with a method a path does not serve: 405 with an `Allow` header naming
 * what it serves, never 404 or 500; a path no route serves stays 404. Nothing here reaches a
 * database: the answer comes before any route runs.
 */
import { describe, expect, test } from "bun:test";
import { Hono } from "hono";
import { createPipelineApp } from "../../functions/pipeline/app.ts";
import type { PipelineDeps } from "../../functions/pipeline/deps.ts";
import { answerUnservedMethods } from "../../shared/http/method-not-allowed.ts";
import { createLogger } from "../../shared/logging/logger.ts";

const KEY = "service-role-key-for-tests";
const noDatabase = () => {
  throw new Error("no database in unit tests");
};
const deps = {
  env: { ENV: "dev", SERVICE_ROLE_KEY: KEY, FUNCTIONS_URL: "http://edge.test" },
  sql: new Proxy(noDatabase, { get: noDatabase, apply: noDatabase }),
  logger: createLogger("pipeline", { write: () => {} }, "fatal"),
} as unknown as PipelineDeps;
const app = createPipelineApp(deps);

const send = (method: string, path: string) => app.request(`http://edge.test/pipeline${path}`, { method, headers: { authorization: `Bearer ${KEY}` } });

describe("the pipeline app", () => {
  test.each([
    ["DELETE", "/runs", "GET, HEAD, POST"],
    ["PUT", "/runs", "GET, HEAD, POST"],
    ["GET", "/tick", "POST"],
    ["DELETE", "/tick", "POST"],
    ["POST", "/health", "GET, HEAD"],
    ["DELETE", "/runs/3f1c4c1e-0a1b-4c2d-8e3f-405162738495", "GET, HEAD"],
    ["GET", "/runs/3f1c4c1e-0a1b-4c2d-8e3f-405162738495/abort", "POST"],
    ["GET", "/dead-letters/12/retry", "POST"],
    ["DELETE", "/dimensions", "GET, HEAD, POST"],
    ["PUT", "/dimensions/tech-explained", "GET, HEAD, PATCH"],
    ["DELETE", "/dimensions/tech-explained", "GET, HEAD, PATCH"],
    ["GET", "/dimensions/tech-explained/pause", "POST"],
    ["PATCH", "/accounts", "GET, HEAD, POST"],
    ["GET", "/accounts/3f1c4c1e-0a1b-4c2d-8e3f-405162738495", "DELETE"],
    ["PUT", "/accounts/3f1c4c1e-0a1b-4c2d-8e3f-405162738495/resume", "POST"],
    ["OPTIONS", "/dimensions", "GET, HEAD, POST"],
  ])("%s %s is 405, Allow: %s", async (method, path, allow) => {
    const response = await send(method, path);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe(allow);
    expect(((await response.json()) as { error: string }).error).toContain(`${method} is not served`);
  });

  test("a HEAD on a path served only by POST is 405 too", async () => {
    const response = await send("HEAD", "/tick");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });

  test.each([
    ["GET", "/nothing-here"],
    ["DELETE", "/dimensions/tech-explained/explode"],
    ["POST", "/runs/3f1c4c1e-0a1b-4c2d-8e3f-405162738495/abort/now"],
  ])("%s %s, a path no route serves, stays 404", async (method, path) => {
    const response = await send(method, path);
    expect(response.status).toBe(404);
    expect(response.headers.get("allow")).toBeNull();
  });

  test("a served method still needs the bearer first: an unauthenticated wrong method is 401, never a hint", async () => {
    const response = await app.request("http://edge.test/pipeline/runs", { method: "DELETE" });
    expect(response.status).toBe(401);
  });
});

describe("answerUnservedMethods", () => {
  test("counts routes registered after it is called, and leaves middleware out", async () => {
    const small = new Hono().basePath("/fn");
    small.use("*", async (_c, next) => await next());
    answerUnservedMethods(small);
    small.get("/items/:id", (c) => c.text("item"));
    small.delete("/items/:id", (c) => c.text("deleted"));
    const refused = await small.request("http://x.test/fn/items/7", { method: "POST" });
    expect(refused.status).toBe(405);
    expect(refused.headers.get("allow")).toBe("DELETE, GET, HEAD");
    expect((await small.request("http://x.test/fn/items/7")).status).toBe(200);
    expect((await small.request("http://x.test/fn/other", { method: "POST" })).status).toBe(404);
  });
});
