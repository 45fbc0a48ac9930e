import { ErrorAnswer } from "../shared/contracts/http-error.ts";
import { terminalText } from "./output.ts";

/** Exit codes of `mdame`, as `mdame --help` documents them. */
export const EXIT = {
  ok: 0,
  /** The run ended failed or rolled back (`run --wait`), or the API answered an error not listed below. */
  failure: 1,
  /** Unknown command or flag, a bad value, or no API address/key configured. */
  usage: 2,
  /** HTTP 401: the service-role key was refused. */
  unauthorized: 3,
  /** HTTP 404: no such run, dead letter or dimension. */
  notFound: 4,
  /** HTTP 409: the state forbids the call. */
  conflict: 5,
  /** The API could not be reached at all. */
  unreachable: 6,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the CLI reports in one line on stderr and ends with `exitCode`. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: ExitCode) {
    super(message);
    this.name = "CliError";
  }
}

/** A mistake in how mdame was called; reported with the command's usage. */
export class UsageError extends CliError {
  /** The command whose usage to print (its words, e.g. "dlq retry"); absent: the general usage. */
  constructor(message: string, readonly command?: string) {
    super(message, EXIT.usage);
    this.name = "UsageError";
  }
}

/** The exit code for an HTTP error status. */
export function exitCodeForStatus(status: number): ExitCode {
  if (status === 401) return EXIT.unauthorized;
  if (status === 404) return EXIT.notFound;
  if (status === 409) return EXIT.conflict;
  return EXIT.failure;
}

/** Turns an HTTP error answer into the CliError the user sees; a body outside ErrorAnswer is shown as text. */
export function apiError(status: number, body: unknown, url: string): CliError {
  const answer = ErrorAnswer.safeParse(body);
  const parsed: Partial<ErrorAnswer> = answer.success ? answer.data : {};
  // What the server says reaches the terminal with its controls and line breaks made visible.
  const server = terminalText(parsed.error ?? (typeof body === "string" && body.trim() ? body.trim().slice(0, 200) : ""));
  const code = exitCodeForStatus(status);
  if (status === 401) return new CliError(`the service-role key was refused (HTTP 401 from ${url})`, code);
  if (status === 404 || status === 409) return new CliError(server || `HTTP ${status} from ${url}`, code);
  if (status === 400 && parsed.issues && parsed.issues.length > 0) {
    const issues = parsed.issues.flatMap((i) => {
      const at = terminalText(i.path.join("."));
      // Unknown fields come as one issue listing them; each is named on its own line.
      if (i.keys) return i.keys.map((key) => `${at ? `${at}.` : ""}${terminalText(key)}: unknown field`);
      return [`${at ? `${at}: ` : ""}${terminalText(i.message)}`];
    });
    const text = issues.length === 1 ? ` ${issues[0]}` : issues.map((line) => `\n  ${line}`).join("");
    return new CliError(`the API refused the request:${text}`, code);
  }
  const errorId = parsed.error_id ? ` (error id ${terminalText(parsed.error_id)}, in the pipeline's log)` : "";
  return new CliError(`HTTP ${status} from ${url}${server ? `: ${server}` : ""}${errorId}`, code);
}

/** A request that never got an HTTP answer. */
export function networkError(baseUrl: string, cause: unknown): CliError {
  const error = cause as { name?: string; code?: string; message?: string };
  const detail = error?.name === "TimeoutError" ? "no answer in time" : error?.message || error?.code || String(cause);
  return new CliError(`cannot reach ${baseUrl}: ${terminalText(detail)}`, EXIT.unreachable);
}
