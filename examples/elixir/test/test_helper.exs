# Needs (scripts/test-elixir.sh sets them): CODEX_BIN (the real codex CODEX_DEFAULT), MOCK_CODEX_CONFIG
# (config.toml written by `mock-model --codex-home`, pointing Codex at the local mock model),
# CODEX_TEST_TMP (scratch directory), MOCK_MODEL_PORT (the mock model's port, to read what it received).
ExUnit.start(timeout: 120_000)

defmodule CodexClient.TestEnv do
  @doc "Options for start_link/1: a fresh CODEX_HOME (mock-model config) and work dir."
  def opts(name) do
    base =
      Path.join(
        System.fetch_env!("CODEX_TEST_TMP"),
        "#{name}-#{System.unique_integer([:positive])}"
      )

    home = Path.join(base, "home")
    work = Path.join(base, "work")
    File.mkdir_p!(home)
    File.mkdir_p!(work)
    File.cp!(System.fetch_env!("MOCK_CODEX_CONFIG"), Path.join(home, "config.toml"))

    [
      codex_bin: System.fetch_env!("CODEX_BIN"),
      codex_home: home,
      cwd: work,
      client_name: "codexclient-elixir-test",
      timeout_ms: 60_000
    ]
  end
end
