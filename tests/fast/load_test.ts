// Load: the agent's loop, a burst, and samples of the soak and the fuzz corpus.
// One module of `deno task test`; tests/deno_tasks_test.ts says why the suite is grouped.

import "../agent_loop_test.ts";
import "../burst_test.ts";
import "../soak_test.ts";
import "../fuzz_test.ts";
