// The tools group of `deno task test`: every test file in this folder, in one module.

import { importTestsBeside } from "../helpers/group.ts";

await importTestsBeside(import.meta.url);
