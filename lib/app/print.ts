// What phone-eye writes itself, a line at a time: diagnostics to stderr, since stdout is the
// protocol channel; --help, --version and --doctor's report to stdout, where no protocol runs.

const encoder = new TextEncoder();

/** A line on stderr. Synchronous, so a line written just before the process exits is not lost. */
export function writeErr(text: string): void {
  Deno.stderr.writeSync(encoder.encode(`${text}\n`));
}

/** A line on stdout: only for the commands that serve no protocol (--help, --version, --doctor). */
export function writeOut(text: string): void {
  Deno.stdout.writeSync(encoder.encode(`${text}\n`));
}

/** Where a server's unexpected failures go: stderr, named, never the tool result. */
export function logError(message: string): void {
  writeErr(`phone-eye: ${message}`);
}
