// phone-eye on the network and in its sandbox: --http, where a key may go, and the permissions.
// One module of `deno task test`; tests/deno_tasks_test.ts says why the suite is grouped.

import "../http_test.ts";
import "../http_serve_test.ts";
import "../http_settings_test.ts";
import "../key_in_clear_test.ts";
import "../sandbox_test.ts";
import "../sandbox_e2e_test.ts";
import "../permissions_test.ts";
