// One test module per folder of tests/: each folder's group_test.ts imports every other test file
// beside it, so the folder is the group and no list of files is kept by hand.

/**
 * Imports each `*_test.ts` file in the folder of `groupUrl` (the group module's import.meta.url),
 * in name order, so their tests register in one module. Deno boots a new isolate for every test
 * module, about 0.25 s of CPU each on a 2-core machine whatever the module holds (40 one-line test
 * files: 10 s; the same 40 imported by one module: 0.05 s; denoland/deno#20437). A file stays
 * runnable on its own (`deno test -P=test tests/adb/queue_test.ts`). Dynamic imports are not type
 * checked by `deno test`: `deno task test` runs `deno check` first.
 */
export async function importTestsBeside(groupUrl: string): Promise<void> {
  const folder = new URL(".", groupUrl);
  const self = new URL(groupUrl).pathname.split("/").pop();
  const names: string[] = [];
  for await (const entry of Deno.readDir(folder)) {
    if (entry.isFile && entry.name.endsWith("_test.ts") && entry.name !== self) {
      names.push(entry.name);
    }
  }
  for (const name of names.sort()) await import(new URL(name, folder).href);
}
