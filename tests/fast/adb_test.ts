// The adb layer: commands as data, the runner, the device queue, errors, and Android versions and
// phones end to end.
// One module of `deno task test`; tests/deno_tasks_test.ts says why the suite is grouped.

import "../e2e_android_test.ts";
import "../e2e_adb_env_test.ts";
import "../e2e_phones_test.ts";
import "../phones_test.ts";
import "../adb_commands_test.ts";
import "../adb_device_test.ts";
import "../adb_errors_test.ts";
import "../adb_hostile_test.ts";
import "../adb_output_test.ts";
import "../adb_queue_test.ts";
import "../adb_runner_test.ts";
import "../near_names_test.ts";
import "../characters_test.ts";
