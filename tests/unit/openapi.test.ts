/**
 * The OpenAPI document generated from the route declarations (shared/api) against the apps that
 * serve them: both apps serve every declared route and nothing else, every example passes its Zod
 * contract and the JSON Schema the document gives it (Ajv, draft 2020-12), the whole document is
 * valid OpenAPI 3.1, and GET /pipeline/openapi.json serves it. Nothing here reaches a database:
 * no route but the document's runs.
 */
import { describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { z } from "zod";
import { createPipelineApp } from "../../functions/pipeline/app.ts";
import type { PipelineDeps } from "../../functions/pipeline/deps.ts";
import { createWorkerCallbackApp } from "../../functions/worker-callback/app.ts";
import { bodies } from "../../shared/api/components.ts";
import { allRoutes, openApiDocument } from "../../shared/api/document.ts";
import { createLogger } from "../../shared/logging/logger.ts";

const KEY = "service-role-key-for-tests";
const FUNCTIONS_URL = "http://edge.test/functions/v1";
const noDatabase = () => {
  throw new Error("no database in unit tests");
};
const database = new Proxy(noDatabase, { get: noDatabase, apply: noDatabase });
const logger = createLogger("pipeline", { write: () => {} }, "fatal");
const pipeline = createPipelineApp({ env: { ENV: "dev", SERVICE_ROLE_KEY: KEY, FUNCTIONS_URL }, sql: database, logger } as unknown as PipelineDeps);
const workerCallback = createWorkerCallbackApp({ sql: database as never, logger, webhookSecrets: ["whsec_dGVzdC1zZWNyZXQtZm9yLXVuaXQtdGVzdHM="] });

type Operation = {
  operationId: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};
type Media = { schema: { $ref: string }; examples: Record<string, { value: unknown }> };
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

const document = openApiDocument(FUNCTIONS_URL) as unknown as Document;

/** `METHOD /path/{param}` of every route an app registers; middleware (`ALL`) serves no method of its own. */
function registeredRoutes(app: { routes: readonly { method: string; path: string }[] }): string[] {
  const routes = app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`);
  return [...new Set(routes)].sort();
}

const declaredRoutes = allRoutes.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();

const registered = [...registeredRoutes(pipeline), ...registeredRoutes(workerCallback)].sort();

describe("the routes the document describes", () => {
  test("are exactly the routes both apps serve", () => {
    expect(registered).toEqual(declaredRoutes);
    expect(registered).toContain("POST /worker-callback");
    expect(registered).toContain("GET /pipeline/openapi.json");
    expect(registered.length).toBeGreaterThan(30);
  });

  test("each has its own operationId, a summary and one tag", () => {
    const ids = allRoutes.map((r) => r.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const route of allRoutes) {
      expect([route.operationId, (route.summary ?? "").length > 5, route.tags?.length]).toEqual([route.operationId, true, 1]);
    }
  });

  test("every path parameter of a documented path is described, and nothing else is", () => {
    for (const [path, item] of Object.entries(document.paths)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      for (const operation of Object.values(item)) {
        const described = (operation.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name).sort();
        expect({ path, params: described }).toEqual({ path, params: inPath });
      }
    }
  });
});

/** Every example in the document, with the component its media names. */
function documentExamples(): { where: string; component: string; side: "request" | "response"; value: unknown }[] {
  const found = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const media = [
        ...Object.values(operation.requestBody?.content ?? {}).map((m) => ({ m, side: "request" as const, status: "body" })),
        ...Object.entries(operation.responses).flatMap(([status, r]) => Object.values(r.content ?? {}).map((m) => ({ m, side: "response" as const, status }))),
      ];
      for (const { m, side, status } of media) {
        const component = m.schema.$ref.replace("#/components/schemas/", "");
        expect(Object.keys(m.examples ?? {}).length).toBeGreaterThan(0);
        for (const [name, example] of Object.entries(m.examples)) {
          found.push({ where: `${method.toUpperCase()} ${path} ${status} example ${name}`, component, side, value: example.value });
        }
      }
    }
  }
  return found;
}

const zodOf = (component: string): z.ZodType => {
  const schema = (bodies as Record<string, z.ZodType>)[component];
  if (!schema) throw new Error(`no contract for component ${component}`);
  return schema;
};

describe("the document's examples", () => {
  const examples = documentExamples();
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  // The components live where the document's `$ref`s point: `components` is the document's, not a JSON Schema keyword.
  ajv.addVocabulary(["components"]);
  ajv.addSchema({ $id: "https://mdame.test/openapi.json", components: document.components }, "document");
  const ajvOf = (component: string) => ajv.getSchema(`https://mdame.test/openapi.json#/components/schemas/${component}`)!;

  test("there is one for every body of every route", () => {
    expect(examples.length).toBeGreaterThan(80);
  });

  test("each passes its Zod contract", () => {
    const failures = examples.flatMap((e) => {
      const parsed = zodOf(e.component).safeParse(e.value);
      return parsed.success ? [] : [`${e.where} (${e.component}): ${parsed.error.message}`];
    });
    expect(failures).toEqual([]);
  });

  test("each passes the JSON Schema the document gives it", () => {
    const failures = examples.flatMap((e) => {
      const validate = ajvOf(e.component);
      return validate(e.value) ? [] : [`${e.where} (${e.component}): ${ajv.errorsText(validate.errors)}`];
    });
    expect(failures).toEqual([]);
  });

  test("a value that breaks the contract fails both the contract and the JSON Schema", () => {
    const broken = { run_id: "not-a-uuid", status: "sleeping", created: true, status_url: "x", extra: 1 };
    expect(zodOf("TriggeredRun").safeParse(broken).success).toBe(false);
    const validate = ajvOf("TriggeredRun");
    expect(validate(broken)).toBe(false);
    const fields = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`);
    expect(fields).toEqual(expect.arrayContaining(["/run_id format", "/status enum", " additionalProperties"]));
  });
});

describe("the document", () => {
  test("is valid OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  test("names FUNCTIONS_URL as its server and each function's path under it", () => {
    const doc = openApiDocument(`${FUNCTIONS_URL}/`) as { servers: { url: string }[] };
    expect(doc.servers.map((s) => s.url)).toEqual([FUNCTIONS_URL]);
    expect(Object.keys(document.paths).every((p) => p.startsWith("/pipeline/") || p === "/worker-callback")).toBe(true);
  });

  test("the service routes ask for the bearer, the worker callback for its signature, health and the document for nothing", () => {
    const security = (path: string, method: string) => (document.paths[path]![method] as unknown as { security: unknown[] }).security;
    expect(security("/pipeline/runs", "get")).toEqual([{ serviceRole: [] }]);
    expect(security("/worker-callback", "post")).toEqual([{ webhookSignature: [] }]);
    expect(security("/pipeline/health", "get")).toEqual([]);
    expect(security("/pipeline/openapi.json", "get")).toEqual([]);
  });
});

describe("GET /pipeline/openapi.json", () => {
  const get = (headers: Record<string, string> = {}) => pipeline.request(`http://edge.test/pipeline/openapi.json`, { headers });

  test("answers the document as JSON, without a bearer token", async () => {
    const response = await get();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expect(response.headers.get("cache-control")).toContain("max-age=");
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(document)));
  });

  test("has an ETag, and a matching If-None-Match is 304 without a body", async () => {
    const etag = (await get()).headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await get({ "if-none-match": etag! });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect((await get({ "if-none-match": '"another"' })).status).toBe(200);
    expect((await get({ "if-none-match": `"other", W/${etag}` })).status).toBe(304);
  });

  test("is served for GET only", async () => {
    const response = await pipeline.request("http://edge.test/pipeline/openapi.json", { method: "POST" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
  });
});
