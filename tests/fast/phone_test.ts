// The simulated phone itself and the rig the end-to-end tests build from it.
// One module of `deno task test`; tests/deno_tasks_test.ts says why the suite is grouped.

import "../sim_test.ts";
import "../sim_transitions_test.ts";
import "../sim_cli_test.ts";
import "../rig_test.ts";
