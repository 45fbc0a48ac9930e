/**
 * An OpenAPI 3.1 document built from route descriptions whose bodies are the Zod contracts the
 * routes answer with and parse (shared/contracts). OpenAPI 3.1 schemas are JSON Schema 2020-12,
 * which is what Zod's own `z.toJSONSchema` writes, so nothing is described twice.
 *
 * Every request body and response body names a component (`components/schemas`, referenced with
 * `$ref`): request bodies are described as the schema accepts them (`io: "input"`: defaults may be
 * left out), answers as the schema produces them (`io: "output"`: defaulted fields are present).
 * A component whose two sides differ gets both, the accepted side named `<Name>Input`.
 */
import { z } from "zod";

type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/** One example of a body: `value` must pass the body's schema (a test parses every one). */
export interface ExampleDoc {
  summary: string;
  value: unknown;
}

/** A JSON body: the component it is, and at least one example. */
export interface BodyDoc {
  /** A key of the document's `components`. */
  component: string;
  examples: Record<string, ExampleDoc>;
}

export interface ResponseDoc {
  description: string;
  body?: BodyDoc;
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
}

export interface ParameterDoc {
  schema: z.ZodType;
  description: string;
}

interface HeaderParameterDoc extends ParameterDoc {
  required: boolean;
}

/** One route: what an operation of the document says about it. */
export interface RouteDoc {
  method: HttpMethod;
  /** The path as OpenAPI writes it, with the function's base path: `/pipeline/runs/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** A key of the document's security schemes, or null for a route anyone may call. */
  security: string | null;
  /** Path parameters, by name; every `{name}` of the path has one. */
  params?: Record<string, ParameterDoc>;
  /** The query string's schema: an object whose fields are the query parameters. */
  query?: z.ZodObject;
  headers?: Record<string, HeaderParameterDoc>;
  /** The JSON body; `required: false` when an empty body stands for `{}`. */
  body?: BodyDoc & { required: boolean };
  /** By status code. */
  responses: Record<number, ResponseDoc>;
}

interface ApiDoc {
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string }[];
  tags: { name: string; description: string }[];
  securitySchemes: Record<string, Record<string, unknown>>;
  /** The named bodies: request and response schemas, each one a component. */
  components: Record<string, z.ZodType>;
  routes: readonly RouteDoc[];
}

type JsonSchema = Record<string, unknown>;
type Io = "input" | "output";

/**
 * Zod's JSON Schema options for one side. JSON has no Date: a date (accepted from postgres.js
 * rows) is sent as its ISO text. A transform's output has no schema of its own; the contracts'
 * transforms normalise values (language tags, time zones, timestamps), so an answer's field is
 * described by what the transform accepts, which its output also is.
 */
function jsonSchemaOptions(io: Io): z.core.ToJSONSchemaParams {
  return {
    target: "draft-2020-12",
    io,
    unrepresentable: ({ zodSchema }) => (zodSchema._zod.def.type === "date" ? { type: "string", format: "date-time" } : "any"),
    override: ({ zodSchema, jsonSchema }) => {
      const def = zodSchema._zod.def as { type: string; in?: z.core.$ZodType; out?: z.core.$ZodType };
      if (io === "output" && def.type === "pipe" && def.out?._zod.def.type === "transform") {
        const accepted = z.toJSONSchema(def.in!, jsonSchemaOptions("output")) as JsonSchema;
        delete accepted.$schema;
        Object.assign(jsonSchema, accepted);
      }
    },
  };
}

/** A schema on its own, every reference inlined (parameters, and comparing the two sides of a component). */
function toJsonSchema(schema: z.ZodType, io: Io): JsonSchema {
  const json = z.toJSONSchema(schema, jsonSchemaOptions(io)) as JsonSchema;
  delete json.$schema;
  return json;
}

const componentRef = (name: string) => `#/components/schemas/${name}`;

/** `$ref`s a schema makes to components, by component id. */
function refsOf(json: JsonSchema): string[] {
  return [...JSON.stringify(json).matchAll(/"#\/components\/schemas\/([A-Za-z0-9_]+)"/g)].map((m) => m[1]!);
}

const clean = (json: JsonSchema): JsonSchema => {
  const { $id: _id, $schema: _schema, ...rest } = json;
  return rest;
};

/**
 * The components of both sides, each referring to the others with `$ref`. The answers' side keeps
 * the names; a component also reached from a request body whose accepted form differs is written
 * a second time as `<Name>Input`.
 */
function buildComponents(components: Record<string, z.ZodType>, used: { input: Set<string>; output: Set<string> }) {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(components)) registry.add(schema, { id });
  const generate = (io: Io, uri: (id: string) => string) =>
    z.toJSONSchema(registry, { ...jsonSchemaOptions(io), uri } as z.core.RegistryToJSONSchemaParams).schemas as Record<string, JsonSchema>;

  const schemas: Record<string, JsonSchema> = {};
  const output = generate("output", componentRef);
  const reachOutput = (id: string) => {
    if (schemas[id]) return;
    schemas[id] = clean(output[id]!);
    for (const ref of refsOf(schemas[id])) reachOutput(ref);
  };
  for (const id of used.output) reachOutput(id);
  const answered = new Set(Object.keys(schemas));

  const differs = (id: string) => JSON.stringify(toJsonSchema(components[id]!, "input")) !== JSON.stringify(toJsonSchema(components[id]!, "output"));
  const renamed = new Set(Object.keys(components).filter((id) => answered.has(id) && differs(id)));
  const inputName = (id: string) => (renamed.has(id) ? `${id}Input` : id);
  const input = generate("input", (id) => componentRef(inputName(id)));
  const reachInput = (id: string) => {
    const name = inputName(id);
    // An answered component whose accepted form is the same is already there.
    if (schemas[name]) return;
    schemas[name] = clean(input[id]!);
    for (const ref of refsOf(schemas[name])) reachInput(ref.endsWith("Input") && renamed.has(ref.slice(0, -5)) ? ref.slice(0, -5) : ref);
  };
  for (const id of used.input) reachInput(id);
  if (input.__shared || output.__shared) throw new Error("a schema of the document refers to itself without a component name");
  return {
    schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
    refOf: (io: Io, id: string) => componentRef(io === "input" ? inputName(id) : id),
  };
}

function queryParameters(query: z.ZodObject) {
  const json = toJsonSchema(query, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, schema]) => ({
    name,
    in: "query",
    required: (json.required ?? []).includes(name),
    schema,
  }));
}

const examplesOf = (body: BodyDoc) => Object.fromEntries(Object.entries(body.examples).map(([key, e]) => [key, { summary: e.summary, value: e.value }]));

/** The OpenAPI 3.1 document of `api`. Throws when a route names a component the document lacks. */
export function buildOpenApiDocument(api: ApiDoc): Record<string, unknown> {
  const used = { input: new Set<string>(), output: new Set<string>() };
  const need = (io: Io, body: BodyDoc | undefined, where: string) => {
    if (!body) return;
    if (!api.components[body.component]) throw new Error(`${where} names the component ${body.component}, which the document does not list`);
    used[io].add(body.component);
  };
  for (const route of api.routes) {
    need("input", route.body, `${route.method.toUpperCase()} ${route.path}`);
    for (const response of Object.values(route.responses)) need("output", response.body, `${route.method.toUpperCase()} ${route.path}`);
  }
  const { schemas, refOf } = buildComponents(api.components, used);

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of api.routes) {
    const parameters = [
      ...Object.entries(route.params ?? {}).map(([name, p]) => ({
        name,
        in: "path",
        required: true,
        description: p.description,
        schema: toJsonSchema(p.schema, "input"),
      })),
      ...(route.query ? queryParameters(route.query) : []),
      ...Object.entries(route.headers ?? {}).map(([name, h]) => ({
        name,
        in: "header",
        required: h.required,
        description: h.description,
        schema: toJsonSchema(h.schema, "input"),
      })),
    ];
    const responses = Object.fromEntries(
      Object.entries(route.responses).map(([status, response]) => [status, {
        description: response.description,
        ...(response.headers && { headers: response.headers }),
        ...(response.body &&
          { content: { "application/json": { schema: { $ref: refOf("output", response.body.component) }, examples: examplesOf(response.body) } } }),
      }]),
    );
    const operation = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description && { description: route.description }),
      tags: route.tags,
      security: route.security === null ? [] : [{ [route.security]: [] }],
      ...(parameters.length > 0 && { parameters }),
      ...(route.body && {
        requestBody: {
          required: route.body.required,
          content: { "application/json": { schema: { $ref: refOf("input", route.body.component) }, examples: examplesOf(route.body) } },
        },
      }),
      responses,
    };
    const item = (paths[route.path] ??= {});
    if (item[route.method]) throw new Error(`${route.method.toUpperCase()} ${route.path} is described twice`);
    item[route.method] = operation;
  }

  return {
    openapi: "3.1.1",
    info: api.info,
    servers: api.servers,
    tags: api.tags,
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: { schemas, securitySchemes: api.securitySchemes },
  };
}
