// What reaches a vision model: image decoding and encoding, and the two vision routes.
// One module of `deno task test`; tests/deno_tasks_test.ts says why the suite is grouped.

import "../image_test.ts";
import "../bytes_test.ts";
import "../memory_test.ts";
import "../text_test.ts";
import "../vision_mcp_test.ts";
import "../vision_direct_test.ts";
import "../vision_key_spellings_test.ts";
