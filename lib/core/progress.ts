// What a long call tells the client while it works: one update for its progress display.
// Declared at the bottom because the look reports it (lib/look/) and the server sends it (lib/mcp/).

/** One update for the client's progress display: `progress` must grow with every update. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** Sends one progress notification for the call; the promise settles once it is written. */
export type ReportProgress = (update: ProgressUpdate) => Promise<void>;
