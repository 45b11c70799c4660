// The screenshot saver on the issue's own finding: a phone PNG with a 40 MiB tEXt chunk.
// tests/screen/shots_test.ts runs the same case with 9 MiB. `deno task test:long` runs this file.

import { textChunkIsStripped } from "../helpers/shot_saver.ts";

Deno.test("a phone PNG carrying a 40 MiB tEXt chunk is saved as its image alone, byte for byte", async () => {
  await textChunkIsStripped(40);
});
