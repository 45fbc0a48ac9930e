import type { PipelineDeps } from "../deps.ts";

/** What the operator routes use of the pipeline's dependencies. */
export type OperatorDeps = Pick<PipelineDeps, "env" | "sql" | "store" | "logger" | "credentialKeys">;
