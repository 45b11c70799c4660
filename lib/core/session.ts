// What one MCP session remembers across its calls: which one-time notes it has already given.
// One per client session (stdio: the process; HTTP: each Mcp-Session-Id), so each hears a note once.

export interface Session {
  /** True the first time `note` is asked about in this session, false every time after. */
  firstTime(note: string): boolean;
}

export function createSession(): Session {
  const given = new Set<string>();
  return {
    firstTime(note) {
      if (given.has(note)) return false;
      given.add(note);
      return true;
    },
  };
}
