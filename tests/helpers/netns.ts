// Running a process where nothing it sends can leave this machine: a fresh network namespace
// (`unshare -n`) whose only interface is its own loopback, holding the "LAN" addresses a test names.

/** `unshare -n` needs root (or user namespaces); where it cannot run, tests that need it are skipped. */
export const canUnshare: boolean = await new Deno.Command("unshare", {
  args: ["-n", "sh", "-c", "ip link set lo up"],
  stdin: "null",
  stdout: "null",
  stderr: "null",
}).output().then((o) => o.success, () => false);

/**
 * The command and arguments that run `program args…` in a sealed namespace where each of
 * `addresses` (e.g. "192.168.1.50") is an address of the namespace's own loopback: a connection to
 * one is refused at once, or reaches a listener the test started inside, and never a real host.
 */
export function sealed(
  program: string,
  args: readonly string[],
  addresses: readonly string[] = [],
  options: { cleanup?: string } = {},
): { command: string; args: string[] } {
  // The child's own PATH may hold no system tools (a test that keeps adb out sets none), so the
  // namespace is set up with the system's.
  const ip = "PATH=/usr/sbin:/sbin:/usr/bin:/bin ip";
  const up = [`${ip} link set lo up`, ...addresses.map((a) => `${ip} addr add ${a}/32 dev lo`)];
  return {
    command: "/usr/bin/unshare",
    // `cleanup` runs in the namespace once the program has exited (an adb server it started
    // there would otherwise outlive the test), and the program's status is kept.
    args: [
      "-n",
      "/bin/sh",
      "-c",
      options.cleanup === undefined
        ? `${up.join(" && ")} && exec "$@"`
        : `${up.join(" && ")} && { "$@"; s=$?; ${options.cleanup}; exit $s; }`,
      "sh",
      program,
      ...args,
    ],
  };
}
