// Faults: the README's reliability rows, the end of input, every error's words, and the clock.
// One module of `deno task test`; tests/deno_tasks_test.ts says why the suite is grouped.

import "../reliability_test.ts";
import "../end_of_input_test.ts";
import "../error_words_test.ts";
import "../clock_test.ts";
