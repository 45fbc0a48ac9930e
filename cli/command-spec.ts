/** How a command of `mdame` is described: its words, arguments and flags (parsed by args.ts, shown by its help). */

type FlagKind = "boolean" | "string" | "integer";

export interface FlagSpec {
  name: string;
  kind: FlagKind;
  /** Placeholder of the value in the help (string and integer flags). */
  value?: string;
  description: string;
  /** Bounds of an integer flag. */
  min?: number;
  max?: number;
}

/** An argument of a command given by its place: `<name>` when required, else `[name]`. */
export interface Positional {
  name: string;
  required: boolean;
  description: string;
}

export interface CommandSpec {
  /** The words that name the command: ["run"], ["run", "abort"], ["dlq", "list"]. */
  words: string[];
  positionals: Positional[];
  flags: FlagSpec[];
  summary: string;
  details?: string;
}

export const JSON_FLAG: FlagSpec = { name: "json", kind: "boolean", description: "print the API's answer as JSON (for scripts)" };
