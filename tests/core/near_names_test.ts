// Near-name matching: the installed packages closest to a name an agent got wrong.

import assert from "node:assert/strict";
import { closestPackages } from "../../lib/core/near_names.ts";

Deno.test({
  name: "closestPackages ranks shared name parts first, then edit distance, and stays bounded",
  permissions: "none",
  fn() {
    const installed = [
      "com.android.settings",
      "com.android.chrome",
      "com.google.android.youtube",
      "com.whatsapp",
      "org.telegram.messenger",
      "com.android.systemui",
    ];
    const close = closestPackages("com.android.setings", installed);
    assert.equal(close[0], "com.android.settings");
    assert.equal(close.length, 3);
    assert.ok(close.every((p) => p.startsWith("com.android.")), close.join());
    assert.equal(closestPackages("chrome", installed)[0], "com.android.chrome");
    assert.equal(closestPackages("com.google.youtube", installed)[0], "com.google.android.youtube");
    assert.equal(closestPackages("org.telegram", installed)[0], "org.telegram.messenger");
    assert.deepEqual(closestPackages("a.b", []), []);
    assert.equal(closestPackages("x.y", installed, 2).length, 2);
    // 5,000 long names: the cut at 100 characters keeps this a bounded amount of work.
    const huge = Array.from({ length: 5000 }, (_, i) => `com.${"x".repeat(250)}.${i}`);
    assert.equal(closestPackages(`com.${"y".repeat(250)}`, huge).length, 3);
  },
});
