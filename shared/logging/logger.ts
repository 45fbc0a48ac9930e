import pino from "pino";
import { registerSecrets, scrubText, scrubValue, secretValuesOf } from "./scrub.ts";

/**
 * Fields every log line carries where known (docs/conventions.md, "Errors and logs"; docs/reference/logs.md):
 * `execution_id` is the run's id, `status` the outcome a line reports.
 */
export interface LogContext {
  execution_id?: string;
  dimension_id?: string;
  stage?: string;
  step_token?: string;
  unit_id?: string;
  status?: LogStatus;
  [key: string]: unknown;
}

/** Outcomes a line reports in `status`. */
export type LogStatus = "started" | "succeeded" | "failed" | "retrying" | "dead_lettered" | "deferred" | "skipped" | "refused" | "cancelled";

/** Keys whose values are credentials, at the top of a line or one level down. */
const SECRET_KEYS = [
  "authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "apikey",
  "api_key",
  "key",
  "access_token",
  "refresh_token",
  "id_token",
  "token",
  "bot_token",
  "code_verifier",
  "client_secret",
  "credentials",
  "password",
  "secret",
  "service_role_key",
  "webhook_secret",
  "credentials_key",
  "private_key",
];

/** Paths pino blanks out: credentials and tokens never reach a log line (values are scrubbed too, scrub.ts). */
const REDACT_PATHS = [
  ...SECRET_KEYS.flatMap((key) => [`["${key}"]`, `*["${key}"]`]),
  "headers.authorization",
  "*.headers.authorization",
  "headers.cookie",
  "*.headers.cookie",
];

export type Logger = pino.Logger;

function processEnv(): Record<string, string | undefined> {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
}

const serializeError = (error: Error): unknown => pino.stdSerializers.err(error);

/**
 * A JSON-lines logger for one component; pass `destination` to capture lines in tests. Every string
 * of a line (message, fields, bindings, error messages and stacks) is scrubbed of credentials, and
 * of the credential values `secrets` names (default: those of the process environment).
 */
export function createLogger(component: string, destination?: pino.DestinationStream, level?: string, secrets?: Iterable<string>): Logger {
  registerSecrets(secrets ?? secretValuesOf(processEnv()));
  const options: pino.LoggerOptions = {
    base: { component },
    level: level ?? processEnv().LOG_LEVEL ?? "info",
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      log: (object) => scrubValue(object, serializeError) as Record<string, unknown>,
    },
    // formatters.log has already turned an error into its scrubbed serialized form.
    serializers: { err: (value: unknown) => (value instanceof Error ? scrubValue(value, serializeError) : value) },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((arg) => (typeof arg === "string" ? scrubText(arg) : arg)) as Parameters<typeof method>;
        // pino takes the message of an error logged alone from the error itself.
        const [first] = scrubbed;
        if (scrubbed.length === 1 && first instanceof Error) scrubbed.push(scrubText(first.message) as never);
        return method.apply(this, scrubbed);
      },
    },
  };
  return scrubChildBindings(destination ? pino(options, destination) : pino(options));
}

/**
 * Child bindings are serialized once, when the child is made, outside formatters.log: scrub them
 * there. Children are made with Object.create(parent), so they inherit this `child` too.
 */
function scrubChildBindings(logger: Logger): Logger {
  type MakeChild = (this: Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) => Logger;
  const makeChild = logger.child as unknown as MakeChild;
  (logger as { child: unknown }).child = function (this: Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return makeChild.call(this, scrubValue(bindings, serializeError) as pino.Bindings, options);
  };
  return logger;
}
