/**
 * The JSON Schema of a dimension configuration file, generated from the Zod contract
 * (DimensionConfig) so editors can check and complete the files `mdame dimension add|set` read.
 * `mdame dimension schema` prints it; docs/dimension.schema.json is its committed copy.
 *
 * It describes the input: fields with a default are optional. What JSON Schema cannot say (a
 * voice that speaks the language, narration bounds 10 words apart, a time zone Intl knows, the
 * adapt bounds' order) is checked by the contract itself when the file is read.
 */
import { z } from "zod";
import { DimensionConfig } from "./dimension.ts";

const DIMENSION_SCHEMA_ID = "urn:mdame:schema:dimension-config";

/** The committed copy, relative to the project: what editors are pointed at. */
export const DIMENSION_SCHEMA_FILE = "docs/dimension.schema.json";

/** The command that writes the committed copy again. */
export const DIMENSION_SCHEMA_COMMAND = `npm run mdame -- dimension schema --out ${DIMENSION_SCHEMA_FILE}`;

type JsonObject = Record<string, unknown>;

/** The JSON Schema (draft 2020-12) of a dimension configuration file. */
export function dimensionJsonSchema(): JsonObject {
  const generated = z.toJSONSchema(DimensionConfig, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "throw",
    // Zod leaves out the default of a field that transforms (a time zone, a language tag, a section
    // holding one); each of ours is already in the form the field takes, so editors are shown it too.
    override: ({ zodSchema, jsonSchema }) => {
      const def = zodSchema._zod.def as { type: string; defaultValue?: unknown };
      if (def.type === "default" && jsonSchema.default === undefined) jsonSchema.default = JSON.parse(JSON.stringify(def.defaultValue));
    },
  }) as JsonObject;
  const { $schema, ...rest } = generated;
  const properties = rest.properties as JsonObject;
  return {
    $schema,
    $id: DIMENSION_SCHEMA_ID,
    title: "MD-AME dimension configuration",
    description: "A file given to `mdame dimension add --file` (JSON, or YAML ending in .yaml/.yml). Generated from shared/contracts/dimension.ts: " +
      `do not edit; regenerate with \`${DIMENSION_SCHEMA_COMMAND}\`.`,
    ...rest,
    properties: {
      // A JSON file names its schema here for editors; mdame drops the key before checking the file.
      $schema: { type: "string", description: "The JSON Schema this file follows, for editors (ignored by mdame)." },
      ...properties,
    },
  };
}

/** The schema as the committed file holds it: two-space JSON and a final line break. */
export function dimensionJsonSchemaText(): string {
  return `${JSON.stringify(dimensionJsonSchema(), null, 2)}\n`;
}
