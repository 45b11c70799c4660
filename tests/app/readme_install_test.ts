// The README's install commands come from deno.json ("repository", "version"), so they can be
// pasted as they stand: no placeholder left, and a stale block is caught and rewritten.

import assert from "node:assert/strict";
import denoJson from "../../deno.json" with { type: "json" };
import {
  installBlocksFresh,
  readmeInstallBlocks,
  renderInstallBlocks,
  repositoryOf,
  updateInstallBlocks,
} from "../../scripts/readme_tools.ts";

Deno.test("the README's install commands match deno.json (run `deno task readme` if not) and hold no placeholder", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  assert.ok(
    installBlocksFresh(readme),
    "README.md's install blocks are stale: run `deno task readme`",
  );
  assert.doesNotMatch(readme, /<owner>|vX\.Y\.Z/);
  const { slug, url } = repositoryOf(denoJson);
  const blocks = readmeInstallBlocks(readme);
  assert.match(blocks["bundle"]!, new RegExp(`--repo ${slug}$`, "m"));
  assert.ok(
    blocks["binary"]!.includes(`base=${url}/releases/download/v${denoJson.version}`),
    blocks["binary"],
  );
  assert.ok(blocks["source"]!.includes(`git clone ${url} && cd `), blocks["source"]);
});

Deno.test({
  name: "deno.json's repository must be a github.com address, and the blocks follow it",
  permissions: "none",
  fn() {
    assert.deepEqual(repositoryOf({ repository: "https://github.com/acme/eye" }), {
      slug: "acme/eye",
      url: "https://github.com/acme/eye",
    });
    for (
      const bad of [undefined, "acme/eye", "https://gitlab.com/acme/eye", "https://github.com/acme"]
    ) {
      assert.throws(() => repositoryOf({ repository: bad }), /must be https:\/\/github\.com/);
    }
    const acme = renderInstallBlocks(
      repositoryOf({ repository: "https://github.com/acme/eye" }),
      "9.8.7",
    );
    assert.match(
      acme["binary"]!,
      /^base=https:\/\/github\.com\/acme\/eye\/releases\/download\/v9\.8\.7$/m,
    );
    assert.match(acme["binary"]!, /--repo acme\/eye$/m);
    assert.match(acme["source"]!, /^git clone https:\/\/github\.com\/acme\/eye && cd eye$/m);
  },
});

Deno.test({
  name: "a stale install block is caught and rewritten in place; a missing one is named",
  permissions: "none",
  fn() {
    const fresh = `# x\n\n${Object.values(renderInstallBlocks()).join("\n\ntext\n\n")}\n`;
    assert.ok(installBlocksFresh(fresh));
    const stale = fresh.replace(`v${denoJson.version}`, "v0.0.1");
    assert.ok(!installBlocksFresh(stale));
    assert.equal(updateInstallBlocks(stale), fresh);
    assert.throws(() => updateInstallBlocks("# none"), /lacks the install:bundle block markers/);
  },
});
