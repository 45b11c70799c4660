// runtimeFlags: the start task is the one place phone-eye's runtime flags are written.

import assert from "node:assert/strict";
import denoJson from "../../deno.json" with { type: "json" };
import { runtimeFlags } from "../../scripts/runtime_flags.ts";

const task = (start: unknown) => ({ tasks: { start } });

Deno.test({
  name: "runtimeFlags keeps the start task's flags and drops the permission ones",
  permissions: "none",
  fn() {
    assert.deepEqual(
      runtimeFlags(task("deno run -P --no-prompt --conditions=browser --v8-flags=--x main.ts")),
      ["--conditions=browser", "--v8-flags=--x"],
    );
    assert.deepEqual(runtimeFlags(task("deno run -q -P=default --no-prompt main.ts")), []);
    assert.deepEqual(runtimeFlags(denoJson), [
      "--conditions=browser",
      "--v8-flags=--expose-gc,--max-semi-space-size=1",
    ]);
    // `deno task doctor` runs the same server with the same flags.
    assert.equal(denoJson.tasks.doctor, `${denoJson.tasks.start} --doctor`);
  },
});

Deno.test({
  name: "runtimeFlags refuses a start task it cannot read, so compile never drops flags silently",
  permissions: "none",
  fn() {
    for (const bad of [{}, task(undefined), task("deno task other"), task("deno run main.ts -x")]) {
      assert.throws(() => runtimeFlags(bad), /"start" task must read "deno run <flags> main.ts"/);
    }
  },
});
