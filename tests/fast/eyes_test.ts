// The eyes end to end: phone_look and phone_shot, the screen capture and the UI tree they fuse.
// One module of `deno task test`; tests/deno_tasks_test.ts says why the suite is grouped.

import "../e2e_eyes_test.ts";
import "../shots_test.ts";
import "../screen_test.ts";
import "../phone_look_test.ts";
import "../phone_look_size_test.ts";
import "../phone_look_timing_test.ts";
import "../fusion_test.ts";
import "../ui_tree_test.ts";
