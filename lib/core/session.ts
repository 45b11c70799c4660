// What one MCP session remembers across its calls: which one-time notes it has already given.
// One per server instance (server.ts creates it), so each client hears a note once, in full.

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
