// The hand: the verbs that act on the phone, from their arguments to real adb and the simulated
// phone.
// One module of `deno task test`; tests/deno_tasks_test.ts says why the suite is grouped.

import "../e2e_hand_test.ts";
import "../e2e_typing_test.ts";
import "../small_verbs_test.ts";
import "../phone_intent_test.ts";
import "../adb_keyboard_test.ts";
import "../find_element_test.ts";
