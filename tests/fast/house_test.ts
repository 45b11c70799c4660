// The house: the server and its wire, config, the doctor, a first run, the tasks, the README and
// the module graphs.
// One module of `deno task test`; tests/deno_tasks_test.ts says why the suite is grouped.

import "../server_test.ts";
import "../stdio_wire_test.ts";
import "../deno_stdio_transport_test.ts";
import "../tool_schema_test.ts";
import "../config_test.ts";
import "../first_run_test.ts";
import "../doctor_test.ts";
import "../deno_tasks_test.ts";
import "../readme_test.ts";
import "../readme_install_test.ts";
import "../workflows_test.ts";
import "../module_graph_test.ts";
import "../runtime_graph_test.ts";
import "../runtime_flags_test.ts";
