// The one error a setting that cannot be used raises: main.ts prints its message and exits 2
// before anything starts. Its own module so every reader in lib/config can throw it.

export class ConfigError extends Error {
  override name = "ConfigError";
}
