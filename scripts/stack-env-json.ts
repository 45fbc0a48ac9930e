/**
 * Prints, as one JSON object, the environment `npm test` gives the tests of a local stack: what
 * `localStackEnv()` and `pgEnv()` yield under this process's MDAME_LOCAL_DIR and MDAME_*_PORT.
 * scripts/test.ts runs it for the e2e layer's second stack, whose paths and ports are fixed at import.
 */
import { pgEnv } from "../stack/db.ts";
import { localStackEnv } from "../stack/stack-env.ts";

process.stdout.write(`${JSON.stringify({ ...localStackEnv(), ...pgEnv() })}\n`);
