import { createPipelineApp } from "./app.ts";
import { createPipelineDeps } from "./deps.ts";

// Supabase Edge Runtime entry: build the app once per worker and serve it.
const app = createPipelineApp(createPipelineDeps());
Deno.serve(app.fetch);
